import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { doc } from "./dom";
import { decorate } from "../src/markdown/decorate";
import { healInline, healTail } from "../src/markdown/heal";
import { IncrementalMarkdown } from "../src/markdown/incremental";
import { createMarkdown, renderMarkdown } from "../src/markdown/markdown";
import { isPlainStyle, sanitizeToFragment, sanitizeToHtml } from "../src/markdown/sanitize";

const MATHML = "http://www.w3.org/1998/Math/MathML";

/** Renders `text` at once, the way a finished message is shown. */
function renderOnce(text: string): HTMLElement {
  const el = doc.createElement("div");
  new IncrementalMarkdown(el).update(text, false);
  return el;
}

/** Feeds `text` in pieces of `size` characters while streaming, then ends the stream. */
function renderStreamed(text: string, size = 1, md = createMarkdown()): { el: HTMLElement; renderer: IncrementalMarkdown; samples: string[] } {
  const el = doc.createElement("div");
  const renderer = new IncrementalMarkdown(el, md);
  const samples: string[] = [];
  for (let end = size; end < text.length + size; end += size) {
    renderer.update(text.slice(0, Math.min(end, text.length)), true);
    samples.push(el.textContent ?? "");
  }
  renderer.update(text, false);
  return { el, renderer, samples };
}

const LONG = `I'm the **agui-widget demo agent**: a scripted agent with no model and no network, here to \
show what the chat can do. Try one of these:

| say | what happens |
|---|---|
| \`weather in Paris\` | a **backend tool** call, shown as a tool card |
| \`make it teal\` | a **frontend tool**: the browser changes the chat's accent colour |
| \`add buy milk\` | **shared state**: a to-do list, also in \`chat.state\` in Python |

### Code

\`\`\`python
def greet(name: str) -> str:
    return f"Hello, {name}!"  # a comment
\`\`\`

Inline math $e^{i\\pi} + 1 = 0$ and a display formula:

$$
\\int_0^1 x^2 \\, dx = \\frac{1}{3}
$$

1. first
2. second with *emphasis* and ~~strike~~

> a quote
> over two lines

- a [link](https://example.com/docs) and https://example.org
- \`code\` in a list

---

Everything you see travels as AG-UI events: \`chat.events\` in Python holds them all.`;

describe("the Markdown pipeline", () => {
  it("renders a GFM table, with alignment as classes", () => {
    const el = renderOnce("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n");
    const table = el.querySelector("table");
    assert.ok(table);
    assert.deepEqual([...table.querySelectorAll("th")].map((th) => th.textContent), ["a", "b", "c"]);
    assert.deepEqual([...table.querySelectorAll("td")].map((td) => td.className), ["agui-align-left", "agui-align-center", "agui-align-right"]);
    assert.equal(el.querySelector("[style]"), null, "no style attribute outside math");
  });

  it("highlights fenced code and gives each block a copy button", () => {
    const el = renderOnce("```python\ndef f(x):\n    return 1  # one\n```\n\n```\nplain <b>text</b>\n```\n");
    const blocks = el.querySelectorAll(".agui-codeblock");
    assert.equal(blocks.length, 2);
    const first = blocks[0] as HTMLElement;
    assert.equal(first.getAttribute("data-lang"), "python");
    assert.ok(first.querySelector("code.language-python .hljs-keyword"), "python keywords are highlighted");
    assert.ok(first.querySelector(".hljs-comment"));
    assert.equal(first.querySelector("pre")?.textContent, "def f(x):\n    return 1  # one\n", "highlighting keeps the code's text");
    for (const block of blocks) {
      const button = block.querySelector("button.agui-copy-code");
      assert.ok(button, "a copy button");
      assert.equal(button.getAttribute("aria-label"), "Copy code");
      assert.equal(button.textContent, "", "the button adds no text to the message");
    }
    assert.equal(el.querySelector("b"), null, "HTML inside a fence stays text");
    assert.match(blocks[1]?.textContent ?? "", /plain <b>text<\/b>/);
  });

  it("highlights the handful of common languages", () => {
    for (const [lang, code, token] of [
      ["js", "const x = 1;", "hljs-keyword"],
      ["typescript", "let x: number = 1;", "hljs-keyword"],
      ["json", '{"a": 1}', "hljs-attr"],
      ["bash", "echo $HOME", "hljs-built_in"],
      ["sql", "SELECT * FROM t;", "hljs-keyword"],
      ["html", "<p class=\"x\">hi</p>", "hljs-tag"],
      ["css", "a { color: red; }", "hljs-attribute"],
      ["markdown", "# Title", "hljs-section"],
    ] as const) {
      const el = renderOnce(`\`\`\`${lang}\n${code}\n\`\`\`\n`);
      assert.ok(el.querySelector(`.${token}`), `${lang} is highlighted`);
    }
  });

  it("renders inline and display math as MathML", () => {
    const el = renderOnce("Euler: $e^{i\\pi} + 1 = 0$, and\n\n$$\\frac{a}{b}$$\n\nand \\(x^2\\) too.\n\n\\[\n\\sqrt{2}\n\\]\n");
    const maths = [...el.querySelectorAll("math")];
    assert.equal(maths.length, 4);
    for (const m of maths) assert.equal(m.namespaceURI, MATHML, "a real MathML element");
    assert.ok(maths[0]?.querySelector("msup"));
    assert.equal(maths[1]?.getAttribute("display"), "block");
    assert.ok(maths[1]?.closest(".agui-math-display"));
    assert.ok(maths[1]?.querySelector("mfrac"));
    assert.ok(maths[3]?.querySelector("msqrt"));
  });

  it("leaves prices alone and shows bad TeX as source", () => {
    const el = renderOnce("It costs $5 and $10.\n\nBroken: $\\frac{a}{$ here.\n");
    assert.equal(el.querySelector("math"), null);
    assert.match(el.textContent ?? "", /It costs \$5 and \$10\./);
    const error = el.querySelector(".agui-math-error");
    assert.ok(error);
    assert.equal(error.textContent, "$\\frac{a}{$");
  });

  it("keeps math commands from making links or requests", () => {
    const el = renderOnce("$\\href{https://evil.example}{x}$ $\\url{https://evil.example}$ $\\includegraphics{https://evil.example/a.png}$ $\\color{red}{x}$");
    assert.equal(el.querySelector("a, img, [href], [src]"), null);
    const coloured = el.querySelector("math [style]");
    assert.ok(coloured, "plain colours in math are kept");
    assert.match(coloured.getAttribute("style") ?? "", /color/);
  });

  it("opens links in a new tab without opener or referrer", () => {
    const el = renderOnce("[docs](https://example.com/docs) and https://example.org/x and <https://example.net>");
    const links = [...el.querySelectorAll("a")];
    assert.equal(links.length, 3);
    for (const a of links) {
      assert.equal(a.getAttribute("target"), "_blank");
      assert.equal(a.getAttribute("rel"), "noopener noreferrer");
    }
    assert.equal(links[0]?.getAttribute("href"), "https://example.com/docs");
  });

  it("does not turn file names into links", () => {
    const el = renderOnce("Edit setup.py and README.md.");
    assert.equal(el.querySelector("a"), null);
  });

  it("shows HTML in agent text as text", () => {
    const el = renderOnce('Hello <b>bold</b> <img src=x onerror="alert(1)"> `<i>code</i>`');
    assert.equal(el.querySelector("b, img, i"), null);
    assert.match(el.textContent ?? "", /<b>bold<\/b>/);
    assert.equal(el.querySelector("code")?.textContent, "<i>code</i>");
  });

  it("renders images from http(s) and raster data URLs only, lazily and without referrer", () => {
    const el = renderOnce("![a](https://example.com/a.png) ![b](data:image/png;base64,iVBORw0KGgo=) ![c](data:image/svg+xml;base64,PHN2Zz4=)");
    const imgs = [...el.querySelectorAll("img")];
    assert.equal(imgs.length, 2);
    for (const img of imgs) {
      assert.equal(img.getAttribute("loading"), "lazy");
      assert.equal(img.getAttribute("referrerpolicy"), "no-referrer");
    }
  });

  it("accepts only plain styles", () => {
    assert.ok(isPlainStyle("padding-left:0em;padding-right:5.9776pt;"));
    assert.ok(isPlainStyle("display:block math;"));
    assert.ok(isPlainStyle("color:#ff0000;"));
    for (const bad of ["background:url(https://x)", "width:expression(alert(1))", "color:red;behavior:url(x.htc)", "color:\\72 ed", "@import 'x'", "background-image:image-set('x' 1x)", "left:var(--x)"]) {
      assert.ok(!isPlainStyle(bad), bad);
    }
    assert.equal(sanitizeToHtml('<p style="color:red">x</p>'), "<p>x</p>", "no style outside MathML");
  });
});

describe("incremental rendering", () => {
  it("gives the same DOM token by token as at once", () => {
    const whole = renderOnce(LONG).innerHTML;
    const reference = doc.createElement("div");
    reference.appendChild(sanitizeToFragment(renderMarkdown(LONG), LONG));
    decorate(reference);
    assert.equal(whole, reference.innerHTML, "a finished message is markdown-it's render of the whole text, sanitised");
    // One character at a time over a shorter text (the sanitiser is slow under jsdom), then
    // larger pieces over the whole one.
    const short = LONG.slice(0, 420);
    assert.equal(renderStreamed(short, 1).el.innerHTML, renderOnce(short).innerHTML, "one character at a time");
    for (const size of [7, 23]) {
      const { el } = renderStreamed(LONG, size);
      assert.equal(el.innerHTML, whole, `pieces of ${size}`);
    }
  });

  it("parses each completed block once, and only the open tail per token", () => {
    const md = createMarkdown();
    const inputs: string[] = [];
    const parse = md.parse.bind(md);
    md.parse = (src, env) => {
      inputs.push(src);
      return parse(src, env);
    };
    const { renderer } = renderStreamed(LONG, 2, md);
    const tokens = createMarkdown().parse(LONG, {});
    const blocks = tokens.filter((t) => t.level === 0 && t.nesting <= 0);
    assert.equal(renderer.stats.committedBlocks, blocks.length, "every block committed exactly once");
    assert.equal(renderer.stats.fullRenders, 0);
    // The longest parse is the longest block plus the line after it (the next block's first
    // line must be complete before the block is committed), not the text.
    const lines = LONG.split("\n");
    const longestLine = Math.max(...lines.map((l) => l.length));
    const starts = tokens.filter((t) => t.level === 0 && t.nesting >= 0 && t.map).map((t) => (t.map as [number, number])[0]);
    const blockLengths = starts.map((line, i) => lines.slice(line, starts[i + 1] ?? lines.length).join("\n").length);
    const longest = Math.max(...inputs.map((s) => s.length));
    assert.ok(longest <= Math.max(...blockLengths) + longestLine + 2, `a parse of ${longest} characters; the longest block has ${Math.max(...blockLengths)}`);
    // Re-parsing the whole text per token would cost about n²/2 characters.
    const n = LONG.length;
    assert.ok(renderer.stats.parsedChars < (n * n) / 4, `parsed ${renderer.stats.parsedChars} characters for a ${n}-character text`);
  });

  it("never re-parses committed blocks: parse inputs only hold the open tail", () => {
    const md = createMarkdown();
    const inputs: string[] = [];
    const parse = md.parse.bind(md);
    md.parse = (src, env) => {
      inputs.push(src);
      return parse(src, env);
    };
    const paragraphs = Array.from({ length: 40 }, (_, i) => `Paragraph ${i} with **bold** text and \`code\`.`);
    const text = paragraphs.join("\n\n");
    renderStreamed(text, 5, md);
    const longest = Math.max(...inputs.map((s) => s.length));
    assert.ok(longest < 3 * (paragraphs[0]?.length ?? 0), `the longest parse input was ${longest} characters`);
    const firstSeen = inputs.filter((s) => s.includes("Paragraph 0 ")).length;
    const lastSeen = inputs.filter((s) => s.includes("Paragraph 39 ")).length;
    assert.ok(firstSeen < 100 && firstSeen <= lastSeen + 50, `paragraph 0 was parsed ${firstSeen} times`);
  });

  it("updates only the open block's nodes while streaming", () => {
    const el = doc.createElement("div");
    const renderer = new IncrementalMarkdown(el);
    renderer.update("First paragraph.\n\nSecond paragraph.\n\nThird", true);
    const first = el.querySelector("p");
    assert.ok(first);
    renderer.update("First paragraph.\n\nSecond paragraph.\n\nThird one grows", true);
    assert.equal(el.querySelector("p"), first, "a committed block keeps its element");
    assert.equal(el.querySelectorAll("p").length, 3);
  });

  it("starts over when the text is replaced rather than extended", () => {
    const el = doc.createElement("div");
    const renderer = new IncrementalMarkdown(el);
    renderer.update("One.\n\nTwo.\n\nThree", true);
    renderer.update("Something else entirely.", false);
    assert.equal(el.innerHTML, renderOnce("Something else entirely.").innerHTML);
  });

  it("renders a text with a reference definition whole (it reaches across blocks)", () => {
    const text = "See [the docs][d].\n\nMore text.\n\n[d]: https://example.com/docs\n";
    const { el, renderer } = renderStreamed(text, 4);
    assert.equal(el.innerHTML, renderOnce(text).innerHTML);
    assert.equal(el.querySelector("a")?.getAttribute("href"), "https://example.com/docs");
    assert.ok(renderer.stats.fullRenders > 0);
  });

  it("does not make text jump while it streams: the shown text only grows", () => {
    const { samples } = renderStreamed(LONG.split("### Code")[0] as string, 1);
    const lengths = samples.map((s) => s.length);
    for (let i = 1; i < lengths.length; i++) {
      assert.ok((lengths[i] as number) >= (lengths[i - 1] as number), `shrank at sample ${i}: ${JSON.stringify(samples[i - 1])} -> ${JSON.stringify(samples[i])}`);
    }
  });
});

describe("healing the open block", () => {
  it("closes or holds back unfinished inline markers", () => {
    assert.equal(healInline("I'm the **agui"), "I'm the **agui**");
    assert.equal(healInline("I'm the **"), "I'm the ");
    assert.equal(healInline("run `chat.st"), "run `chat.st`");
    assert.equal(healInline("run `"), "run ");
    assert.equal(healInline("**bold *and it"), "**bold *and it***");
    assert.equal(healInline("~~gone"), "~~gone~~");
    assert.equal(healInline("**done** and `x` ok"), "**done** and `x` ok");
    assert.equal(healInline("2 * 3 = 6"), "2 * 3 = 6");
    assert.equal(healInline("a*b"), "a*b");
    assert.equal(healInline("* item"), "* item");
    assert.equal(healInline("`a * b` and **c"), "`a * b` and **c**");
  });

  it("holds back inline math until it is closed, but not prices", () => {
    assert.equal(healInline("cost grows: $c(n) = a +"), "cost grows: ");
    assert.equal(healInline("cost grows: $c(n) = a + bn$ and **more"), "cost grows: $c(n) = a + bn$ and **more**");
    assert.equal(healInline("so \\(x^2"), "so ");
    assert.equal(healInline("it costs $5 and"), "it costs $5 and");
    assert.equal(healInline("$a*b$ then *it"), "$a*b$ then *it*");
    assert.equal(healInline("an earlier $HOME\nline"), "an earlier $HOME\nline");
  });

  it("shows an unfinished link as its text and an unfinished image as nothing", () => {
    assert.equal(healInline("see [the docs](https://exa"), "see the docs");
    assert.equal(healInline("see [the do"), "see the do");
    assert.equal(healInline("see ![a chart](https://exa"), "see ");
    assert.equal(healInline("array[i"), "array[i");
  });

  it("holds back a last line that is only markup, and a table until its delimiter row", () => {
    assert.equal(healTail("Intro\n-"), "Intro\n");
    assert.equal(healTail("Intro\n\n##"), "Intro\n\n");
    assert.equal(healTail("Intro\n\n| say | what"), "Intro\n\n");
    assert.equal(healTail("Intro\n\n| say | what |\n|---|--"), "Intro\n\n");
    assert.equal(healTail("| a |\n|---|\n"), "| a |\n|---|\n");
    assert.equal(healTail("| a |\n|---|\n| 1 | **b"), "| a |\n|---|\n| 1 | **b**");
    assert.equal(healTail("| a | b |\nnot a table\n"), "| a | b |\nnot a table\n");
  });

  it("leaves open code alone, except a closing fence being typed", () => {
    assert.equal(healTail("```python\nx = 1 **"), "```python\nx = 1 **");
    assert.equal(healTail("```python\nx = 1\n``"), "```python\nx = 1\n");
  });
});
