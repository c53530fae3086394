// Size limits for the view's source: fails when a class in src/ is over MAX_CLASS_LINES lines, so
// that no module grows back into one class that does everything (src/mirror/ was split for that
// reason), or when a function is over MAX_FUNCTION_LINES lines (a component, hook or method that
// long is split into named parts: sub-components, hooks, helpers).
//   node scripts/limits.mjs        (npm run limits; `make test` runs it)
//
// The files are parsed by the TypeScript compiler of devDependencies, through its API (tsgo run as
// a child process over tsconfig.json), so a class or function is what the compiler says it is. A
// node's lines run from its first token to its last: the doc comment above it does not count.
import { API } from "typescript/unstable/sync";
import { SyntaxKind, skipTrivia } from "typescript/unstable/ast";
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const MAX_CLASS_LINES = 500;
const MAX_FUNCTION_LINES = 80;

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const src = resolve(root, "src") + sep;

const CLASSES = new Set([SyntaxKind.ClassDeclaration, SyntaxKind.ClassExpression]);
const FUNCTIONS = new Set([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);
/** Nodes whose name a function or class expression assigned to them takes. */
const NAMING = new Set([SyntaxKind.VariableDeclaration, SyntaxKind.PropertyAssignment, SyntaxKind.PropertyDeclaration]);

/** Every class and function of one file: { kind, name, line, lines }. */
function measure(file) {
  const found = [];
  const lineOf = (pos) => file.getLineAndCharacterOfPosition(pos).line;
  const visit = (node, owner, named) => {
    const isClass = CLASSES.has(node.kind);
    const isFunction = FUNCTIONS.has(node.kind);
    let nextOwner = owner;
    let nextNamed = NAMING.has(node.kind) ? nameOf(node) : undefined;
    if (isClass || isFunction) {
      const own = node.kind === SyntaxKind.Constructor ? "constructor" : (nameOf(node) ?? named ?? "(anonymous)");
      const name = owner ? `${owner}.${own}` : own;
      const first = lineOf(skipTrivia(file.text, node.pos));
      found.push({ kind: isClass ? "class" : "function", name, line: first + 1, lines: lineOf(node.end) - first + 1 });
      nextOwner = name;
      nextNamed = undefined;
    }
    node.forEachChild((child) => visit(child, nextOwner, nextNamed));
  };
  file.forEachChild((node) => visit(node, "", undefined));
  return found;
}

function nameOf(node) {
  const name = node.name;
  return name && typeof name.text === "string" ? name.text : undefined;
}

const api = new API({ cwd: root });
let measured;
try {
  const snapshot = api.updateSnapshot({ openProjects: [resolve(root, "tsconfig.json")] });
  const program = snapshot.getProjects()[0].program;
  const files = program
    .getSourceFileNames()
    .filter((name) => resolve(name).startsWith(src))
    .sort();
  measured = files.flatMap((name) => measure(program.getSourceFile(name)).map((m) => ({ ...m, path: relative(root, name) })));
} finally {
  api.close();
}

const where = (m) => `  ${m.path}:${m.line} ${m.name}: ${m.lines} lines`;
const byLength = (a, b) => b.lines - a.lines;
const first = (list, which) => (list.length > 0 ? `${which} ${list[0].name} (${list[0].path}), ${list[0].lines} lines` : "none");
const classes = measured.filter((m) => m.kind === "class").sort(byLength);
const functions = measured.filter((m) => m.kind === "function").sort(byLength);
const bigClasses = classes.filter((m) => m.lines > MAX_CLASS_LINES);
const longFunctions = functions.filter((m) => m.lines > MAX_FUNCTION_LINES);

console.log(`classes in src/: ${classes.length}, ${first(classes, "the largest")}`);
console.log(`functions in src/: ${functions.length}, ${first(functions, "the longest")}`);
if (bigClasses.length > 0) {
  console.error(`classes over ${MAX_CLASS_LINES} lines: ${bigClasses.length} (split each into parts it delegates to, as src/mirror/ is)`);
  for (const m of bigClasses) console.error(where(m));
}
if (longFunctions.length > 0) {
  console.error(`functions over ${MAX_FUNCTION_LINES} lines: ${longFunctions.length} (split each into named parts: sub-components, hooks, helpers or methods)`);
  for (const m of longFunctions) console.error(where(m));
}
if (bigClasses.length > 0 || longFunctions.length > 0) process.exit(1);
