// Server-rendered page shell: pt-BR, phone-first, no framework. Every interpolated value is escaped
// by the caller with escapeHtml; pages set a strict Content-Security-Policy.
export const CSS = `
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2433;background:#f4f6fa}
main{max-width:560px;margin:0 auto;padding:16px}
.card{background:#fff;border-radius:12px;padding:20px;box-shadow:0 1px 3px rgba(0,0,0,.08);margin-bottom:16px}
h1{font-size:1.35rem;margin:0 0 8px}h2{font-size:1.1rem;margin:0 0 8px}
.muted{color:#5b6475;font-size:.9rem}.amount{font-size:1.8rem;font-weight:700}
.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;word-break:break-all}
button,.button{display:inline-block;width:100%;padding:14px;border:0;border-radius:10px;background:#0b6e4f;color:#fff;font-size:1rem;font-weight:600;text-align:center;text-decoration:none;cursor:pointer}
button:focus-visible,a:focus-visible,input:focus-visible,select:focus-visible{outline:3px solid #f2a900;outline-offset:2px}
.ok{color:#0b6e4f}.err{color:#b00020}
@media print{body{background:#fff}.noprint{display:none}.card{box-shadow:none}}
`;

export function page(opts: { title: string; body: string; head?: string; csp?: string }): string {
  return `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${opts.title}</title>
<style>${CSS}</style>
${opts.head ?? ''}
</head>
<body>
<main>
${opts.body}
</main>
</body>
</html>`;
}

export const PAGE_CSP = "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; script-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
