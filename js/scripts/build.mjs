// Builds the widget: src/index.tsx -> ../agui_widget/static/widget.js (one minified ES module
// with a default export, as anywidget loads it) and widget.css next to it; and the chart renderer,
// src/vega/draw.ts -> vega.js (vega, vega-lite, vega-embed), which the view fetches from the kernel
// the first time it draws a Vega-Lite chart, so it costs the widget's load nothing.
//   node scripts/build.mjs            one build, prints the sizes
//   node scripts/build.mjs --watch    rebuild on change (unminified, with source maps)
import * as esbuild from "esbuild";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const outdir = resolve(root, "..", "agui_widget", "static");
const watch = process.argv.includes("--watch");

/** @type {import("esbuild").BuildOptions} */
const options = {
  absWorkingDir: root,
  entryPoints: { widget: "src/index.tsx" },
  outdir,
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
  jsx: "automatic",
  jsxImportSource: "preact",
  minify: !watch,
  sourcemap: watch ? "inline" : false,
  legalComments: "none",
  logLevel: "warning",
  define: { "process.env.NODE_ENV": JSON.stringify(watch ? "development" : "production") },
};

/** Bundles the view asks the kernel for on demand (agui_widget/chat/_assets.py): name -> entry. */
const assets = { vega: "src/vega/draw.ts", a2ui: "src/a2ui/render.ts" };
/** @type {import("esbuild").BuildOptions[]} */
const assetOptions = Object.entries(assets).map(([name, entry]) => ({ ...options, entryPoints: { [name]: entry }, sourcemap: false }));
const assetFiles = Object.keys(assets).map((name) => `${name}.js`);

/** The demo MCP server's counter app (agui_widget/teaching/mcp_demo.py): one self-contained HTML
 * file, its script (the app and ext-apps' `App`) bundled and inlined, as an MCP App is served. */
async function buildCounterApp() {
  const app = { ...options, entryPoints: ["src/mcp-counter-app/main.ts"], outdir: undefined, write: false, sourcemap: false, minify: true };
  const script = (await esbuild.build(app)).outputFiles[0].text.replace(/<\/(script)/gi, "<\\/$1");
  const page = readFileSync(join(root, "src/mcp-counter-app/index.html"), "utf8");
  writeFileSync(join(outdir, "mcp_counter_app.html"), page.replace("<!-- APP_SCRIPT -->", () => `<script type="module">${script}</script>`));
}

mkdirSync(outdir, { recursive: true });

if (watch) {
  await Promise.all([...assetOptions.map((o) => esbuild.build(o)), buildCounterApp()]); // rarely change: built once, not watched
  const ctx = await esbuild.context(options);
  await ctx.watch();
  console.log(`watching src/ -> ${outdir}`);
} else {
  await Promise.all([esbuild.build(options), ...assetOptions.map((o) => esbuild.build(o)), buildCounterApp()]);
  for (const name of ["widget.js", ...assetFiles]) asciiOnly(join(outdir, name));
  for (const name of ["widget.js", "widget.css", ...assetFiles, "mcp_counter_app.html"]) {
    const bytes = readFileSync(join(outdir, name));
    const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
    console.log(`${name}: ${kb(bytes.length)} raw, ${kb(gzipSync(bytes, { level: 9 }).length)} gzipped`);
  }
}

/**
 * Escapes what esbuild leaves outside ASCII (it escapes strings and templates, not regular
 * expression literals): `\uXXXX` means the same code unit there, a surrogate pair the same code
 * point under the `u` flag. The kernel reads the bundle when the first chat is made, and Python
 * decodes an ASCII file several times faster than one with a single character beyond it.
 */
function asciiOnly(path) {
  const text = readFileSync(path, "utf8");
  const escaped = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  if (escaped !== text) writeFileSync(path, escaped);
}
