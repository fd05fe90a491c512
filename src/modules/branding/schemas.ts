import { Type } from '@sinclair/typebox';
import { Nullable } from '../../http/schemas.ts';

export const HexColor = Type.String({ pattern: '^#[0-9a-fA-F]{6}$', description: '#rrggbb; the button colour: white text on it must reach a 4.5:1 contrast (WCAG AA)' });
/** Fetched once by Cofre and served from its own host (modules/media): shoppers' browsers never load the merchant's host. */
export const ImageUrl = Type.String({
  format: 'uri',
  pattern: '^https?://[^/?#\\s]+',
  maxLength: 2048,
  description: 'HTTPS URL of a PNG, JPEG, WebP or GIF of at most 2 MiB; fetched once when saved and served by Cofre',
});
const TermsUrl = Type.String({ format: 'uri', pattern: '^https?://[^/?#\\s]+', maxLength: 2048 });


const themeFields = {
  primaryColor: Nullable(HexColor),
  logoUrl: Nullable(ImageUrl),
  buttonText: Nullable(Type.String({ minLength: 1, maxLength: 40, description: 'The pay button\'s text (default: "Pagar R$ …")' })),
  bannerUrl: Nullable(ImageUrl),
  bannerLayout: Type.Union([Type.Literal('full'), Type.Literal('contained'), Type.Literal('compact'), Type.Literal('none')]),
  fontFamily: Type.Union([Type.Literal('default'), Type.Literal('serif'), Type.Literal('mono')]),
  borderRadius: Type.Union([Type.Literal('square'), Type.Literal('default'), Type.Literal('rounded')]),
  colorScheme: Type.Union([Type.Literal('light'), Type.Literal('dark'), Type.Literal('system')], { description: 'system: follows the shopper\'s device' }),
};

const flags = {
  showHeader: Type.Boolean({ description: "The merchant's name (or logo) above the page" }),
  showPoweredBy: Type.Boolean({ description: '"Pagamento processado por Cofre" at the foot' }),
  showSocialProof: Type.Boolean({ description: 'How many people bought through this link, once at least one did' }),
  showTermsFooter: Type.Boolean({ description: 'A link to termsUrl at the foot (termsUrl required)' }),
  termsUrl: Nullable(TermsUrl),
};

export const CheckoutConfigBody = Type.Object(
  {
    theme: Type.Optional(Type.Partial(Type.Object(themeFields), { additionalProperties: false })),
    showHeader: Type.Optional(flags.showHeader),
    showPoweredBy: Type.Optional(flags.showPoweredBy),
    showSocialProof: Type.Optional(flags.showSocialProof),
    showTermsFooter: Type.Optional(flags.showTermsFooter),
    termsUrl: Type.Optional(flags.termsUrl),
  },
  {
    additionalProperties: false,
    description: 'Branding of the hosted page. Fields given replace the stored ones, null clears one to its default, omitted ones are kept.',
  },
);

export const CheckoutConfigView = Type.Object({ theme: Type.Object(themeFields), ...flags });

const customizationFields = { primaryColor: Nullable(HexColor), logoUrl: Nullable(ImageUrl), backgroundUrl: Nullable(ImageUrl) };
export const CustomizationBody = Type.Partial(Type.Object(customizationFields), { additionalProperties: false, description: 'Fields given replace the stored ones; null clears one' });
export const CustomizationView = Type.Object(customizationFields);
