// Builds the JupyterLab / Notebook 7 extension into ../../agui_widget/labextension/ (the wheel
// ships it as share/jupyter/labextensions/agui-widget/):
//   1. esbuild compiles the plugin, src/index.ts -> lib/index.js (the package's `main`);
//   2. @jupyterlab/builder makes the prebuilt (federated) extension of it. Its `--core-path` is
//      core/package.json, which lists no shared package: the plugin imports none (it reads the
//      application duck-typed), so the build needs neither a JupyterLab install nor the network;
//   3. install.json tells `jupyter labextension list` which Python package installed it.
import * as esbuild from "esbuild";
import { spawnSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = dirname(fileURLToPath(import.meta.url));
const outdir = resolve(root, JSON.parse(readFileSync(join(root, "package.json"), "utf8")).jupyterlab.outputDir);

await esbuild.build({
  absWorkingDir: root,
  entryPoints: ["src/index.ts"],
  outfile: "lib/index.js",
  bundle: true,
  format: "esm",
  platform: "browser",
  target: ["es2020"],
  legalComments: "none",
  logLevel: "warning",
});

const builder = createRequire(import.meta.url).resolve("@jupyterlab/builder/lib/build-labextension.js");
const built = spawnSync(process.execPath, [builder, "--core-path", join(root, "core"), root], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
if (built.status !== 0) {
  console.error(`@jupyterlab/builder failed (exit ${built.status ?? built.signal})`);
  process.exit(1);
}
copyFileSync(join(root, "install.json"), join(outdir, "install.json"));
console.log(`labextension -> ${outdir}`);
