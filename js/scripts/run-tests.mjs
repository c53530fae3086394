// Runs the unit tests: each test/*.test.ts(x) is bundled by esbuild into a temporary directory,
// then node's built-in test runner runs them. Extra arguments go to `node --test`
// (e.g. `npm test -- --test-name-pattern=splice`).
import * as esbuild from "esbuild";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const testDir = join(root, "test");
const files = readdirSync(testDir)
  .filter((f) => /\.test\.tsx?$/.test(f))
  .sort();
// Inside node_modules, so the compiled tests resolve the packages left external (jsdom reads
// files next to its own modules and cannot be bundled).
const cache = join(root, "node_modules", ".cache");
mkdirSync(cache, { recursive: true });
const out = mkdtempSync(join(cache, "agui-widget-js-tests-"));

let status = 1;
try {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: files.map((f) => join(testDir, f)),
    outdir: out,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    jsx: "automatic",
    jsxImportSource: "preact",
    sourcemap: "inline",
    logLevel: "warning",
    external: ["jsdom"],
    // CommonJS dependencies bundled into ESM need a require().
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  const compiled = files.map((f) => join(out, `${basename(f).replace(/\.tsx?$/, "")}.mjs`));
  const result = spawnSync(process.execPath, ["--test", ...process.argv.slice(2), ...compiled], {
    stdio: "inherit",
    env: { ...process.env, AGUI_JS_ROOT: root },
  });
  status = result.status ?? 1;
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exit(status);
