// `node src/main.ts` runs this file: src/main.ts is a symbolic link to it. Node resolves the link
// before it chooses a loader, so this runs as CommonJS on any Node, and a Node that cannot run
// TypeScript (Node 20 stops at the ".ts" extension before any code runs) says which Node to use.
// The command line itself is cli.ts.
if (!process.features.typescript) {
  process.stderr.write(`Cofre needs Node 24 (this is Node ${process.version}): run \`npm start\` (\`npm install\` brings Node 24), or ./node_modules/.bin/node src/main.ts\n`);
  process.exit(1);
}
import('./cli.ts');
