// Files generated from Cofre's own OpenAPI document, committed under web/dashboard/src/api/:
// - schema.d.ts: the API's types (openapi-typescript), which the openapi-fetch client is typed with;
// - key-routes.ts: the operations that take an API key only (their `security` lists no dashboard
//   token), which the client calls with the session's API key instead of the dashboard token.
// `npm run dashboard:types` rewrites both from the app's document; test/dashboard.test.ts
// regenerates them and fails when the committed files differ.
import openapiTS, { astToString } from 'openapi-typescript';
import { fileURLToPath } from 'node:url';

export const SCHEMA_FILE = fileURLToPath(new URL('./src/api/schema.d.ts', import.meta.url));
export const KEY_ROUTES_FILE = fileURLToPath(new URL('./src/api/key-routes.ts', import.meta.url));

const HEADER = `// Generated from Cofre's /openapi.json by openapi-typescript: do not edit.
// Regenerate with \`npm run dashboard:types\` (test/dashboard.test.ts checks it is current).
`;

/** The TypeScript text of the types for an OpenAPI document. */
export async function typesFor(document: object): Promise<string> {
  const ast = await openapiTS(document as never, { alphabetize: true });
  return HEADER + astToString(ast);
}

interface Doc {
  paths: Record<string, Record<string, { security?: Record<string, unknown>[] }>>;
}

/** "METHOD /path/{param}" of every operation an API key opens and a dashboard token does not. */
export function keyOnlyRoutes(document: object): string[] {
  const out: string[] = [];
  for (const [path, ops] of Object.entries((document as Doc).paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const schemes = (op.security ?? []).flatMap((s) => Object.keys(s));
      if (schemes.includes('apiKey') && !schemes.includes('bearerToken')) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out.sort();
}

export function keyRoutesFileFor(document: object): string {
  const lines = keyOnlyRoutes(document).map((r) => `  '${r}',`);
  return `${HEADER.replace('by openapi-typescript', '(operations whose security has an API key but no dashboard token)')}export const KEY_ONLY_ROUTES: ReadonlySet<string> = new Set([\n${lines.join('\n')}\n]);\n`;
}
