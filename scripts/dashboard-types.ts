// Rewrites web/dashboard/src/api/schema.d.ts and key-routes.ts from the app's current /openapi.json
// (the app is built over an in-memory database for the occasion, as the tests do).
import { writeFileSync } from 'node:fs';
import { startApp } from '../test/helpers.ts';
import { KEY_ROUTES_FILE, keyRoutesFileFor, SCHEMA_FILE, typesFor } from '../web/dashboard/openapi-types.ts';

const ctx = await startApp({ env: { LOG_LEVEL: 'warn' } });
try {
  const res = await ctx.app.inject({ method: 'GET', url: '/openapi.json' });
  const doc = JSON.parse(res.body);
  writeFileSync(SCHEMA_FILE, await typesFor(doc));
  writeFileSync(KEY_ROUTES_FILE, keyRoutesFileFor(doc));
  console.log(`wrote ${SCHEMA_FILE} and ${KEY_ROUTES_FILE}`);
} finally {
  await ctx.close();
}
