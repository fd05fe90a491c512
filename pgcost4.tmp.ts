const t0 = performance.now();
const { PGlite } = await import('@electric-sql/pglite');
const t1 = performance.now();
const pg = await PGlite.create();
const t2 = performance.now();
await pg.close();
const t3 = performance.now();
console.log('import', (t1-t0).toFixed(0), 'create-initdb', (t2-t1).toFixed(0), 'close', (t3-t2).toFixed(0));
