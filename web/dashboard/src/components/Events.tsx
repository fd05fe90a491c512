// Webhook event types on screen (names and groups: lib/events.ts): a type's Portuguese name with its
// raw type small beside it, and the checkboxes that choose a webhook's events, group by group.
import type { ApiError } from '../api/client.ts';
import { eventName, groupedEvents } from '../lib/events.ts';

/** A raw type that wraps after its dots and underscores in a narrow column, not in the middle of a word. */
const breakable = (type: string) => type.split(/(?<=[._])/).flatMap((part, i) => (i ? [<wbr key={i} />, part] : [part]));

/** "Pagamento confirmado transaction.completed": the name, then the raw type for developers. */
export function EventName({ type }: { type: string }) {
  const name = eventName(type);
  return (
    <span class="event-name">
      {name}
      {name !== type && <code class="event-type">{breakable(type)}</code>}
    </span>
  );
}

/** The event types as checkboxes (`name="events"`, the raw types as values), one box per group, and the API's error for `events`. */
export function EventPicker<V extends string>({ types, value, onValue, error }: { types: { type: string; description: string }[]; value: V[]; onValue: (v: V[]) => void; error?: ApiError | null }) {
  const message = error?.fields.events;
  const toggle = (type: V, on: boolean) => onValue(on ? [...value, type] : value.filter((x) => x !== type));
  return (
    <fieldset class={message ? 'field-invalid' : undefined} aria-describedby={message ? 'events-err' : undefined}>
      <legend>Eventos</legend>
      {groupedEvents(types).map(([group, events]) => (
        <fieldset key={group} class="event-group">
          <legend>{group}</legend>
          <div class="events-grid">
            {events.map(([type, , when]) => (
              <label key={type} class="check" title={when}>
                <input type="checkbox" name="events" value={type} checked={value.includes(type as V)} onChange={(e) => toggle(type as V, e.currentTarget.checked)} /> <EventName type={type} />
              </label>
            ))}
          </div>
        </fieldset>
      ))}
      {message && (
        <small id="events-err" class="field-message">
          {message}
        </small>
      )}
    </fieldset>
  );
}
