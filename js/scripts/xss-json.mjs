// Writes test/xss-payloads.json from test/xss-payloads.ts (the list the browser tests load).
//   npm run xss-json
import * as esbuild from "esbuild";
import { writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const built = await esbuild.build({
  absWorkingDir: root,
  entryPoints: ["test/xss-payloads.ts"],
  bundle: true,
  format: "esm",
  platform: "node",
  write: false,
  logLevel: "warning",
});
const source = built.outputFiles[0].text;
const { XSS_PAYLOADS } = await import(`data:text/javascript;base64,${Buffer.from(source).toString("base64")}`);
const out = join(root, "test", "xss-payloads.json");
writeFileSync(out, `${JSON.stringify(XSS_PAYLOADS, null, 2)}\n`);
console.log(`${XSS_PAYLOADS.length} payloads -> ${out}`);
