/**
 * Script-injection payloads in the style of OWASP's XSS filter evasion cheat sheet, for the
 * sanitisation tests: each one, if it ever ran, would call the global function `__xss(n)`.
 * A test installs `__xss` as a flag, renders the payloads everywhere the view shows agent, tool
 * or state content, and checks the flag stays unset and the DOM holds nothing executable.
 *
 * `xss-payloads.json` beside this file holds the same list for the browser tests (Python);
 * `npm run xss-json` rewrites it, and a unit test checks the two agree.
 */
export const XSS_PAYLOADS: readonly string[] = [
  // script elements, in several spellings and encodings
  "<script>__xss(1)</script>",
  "<SCRIPT SRC=https://xss.invalid/xss.js></SCRIPT>",
  "<ScRiPt>__xss(3)</sCrIpT>",
  "<<SCRIPT>__xss(4);//<</SCRIPT>",
  '<IMG """><SCRIPT>__xss(5)</SCRIPT>">',
  "<script\x20type=\"text/javascript\">__xss(6)</script>",
  "%3Cscript%3E__xss(7)%3C/script%3E",
  "&lt;script&gt;__xss(8)&lt;/script&gt;",
  // event handler attributes
  "<img src=x onerror=__xss(9)>",
  '<img src="x" onerror="eval(\'__xss(10)\')">',
  "<svg onload=__xss(11)>",
  "<svg/onload=__xss(12)>",
  "<body onload=__xss(13)>",
  "<details open ontoggle=__xss(14)>",
  "<input autofocus onfocus=__xss(15)>",
  "<video><source onerror=\"__xss(16)\"></video>",
  "<marquee onstart=__xss(17)>x</marquee>",
  "<svg><animate onbegin=__xss(18) attributeName=x dur=1s>",
  '"><img src=x onerror=__xss(19)>',
  "<div onmouseover=\"__xss(20)\" style=\"position:fixed;inset:0\">x</div>",
  // javascript: and other dangerous URLs, with case and entity tricks
  "<IMG SRC=javascript:__xss(21)>",
  "<IMG SRC=JaVaScRiPt:__xss(22)>",
  "<IMG SRC=&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;__xss(23)>",
  "<IMG SRC=&#x6A&#x61&#x76&#x61&#x73&#x63&#x72&#x69&#x70&#x74&#x3A__xss(24)>",
  '<IMG SRC="jav&#x09;ascript:__xss(25);">',
  '<a href="javascript:__xss(26)">click</a>',
  '<a href="JaVaScRiPt:__xss(27)">click</a>',
  '<a href="&#106;avascript:__xss(28)">click</a>',
  '<a href="javascript&colon;__xss(29)">click</a>',
  '<a href="  javascript:__xss(30)">click</a>',
  '<a href="data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX194c3MoMzEpPC9zY3JpcHQ+">click</a>',
  '<a href="data:text/html,<script>__xss(32)</script>">click</a>',
  '<a href="vbscript:__xss(33)">click</a>',
  // frames, objects, forms, base, meta
  '<iframe src="javascript:__xss(34)"></iframe>',
  '<iframe srcdoc="<script>parent.__xss(35)</script>"></iframe>',
  '<object data="javascript:__xss(36)"></object>',
  '<embed src="javascript:__xss(37)">',
  '<form action="javascript:__xss(38)"><button>go</button></form>',
  "<button formaction=javascript:__xss(39)>x</button>",
  '<base href="javascript:__xss(40)//">',
  '<meta http-equiv="refresh" content="0;url=javascript:__xss(41)">',
  '<table background="javascript:__xss(42)"><tr><td>x</td></tr></table>',
  // styles
  '<div style="background-image: url(javascript:__xss(43))">x</div>',
  '<div style="width: expression(__xss(44));">x</div>',
  "<style>@import 'javascript:__xss(45)';</style>",
  "<style>*{background:url('javascript:__xss(46)')}</style>",
  // namespace confusion (MathML, SVG) and parser differentials
  "<math><mtext><table><mglyph><style><img src=x onerror=__xss(47)>",
  '<math><mi xlink:href="javascript:__xss(48)">x</mi></math>',
  '<svg><a xlink:href="javascript:__xss(49)"><text x="20" y="20">x</text></a></svg>',
  "<svg><script>__xss(50)</script></svg>",
  "<svg><style><img src=x onerror=__xss(51)></style></svg>",
  '<noscript><p title="</noscript><img src=x onerror=__xss(52)>">',
  "<math><annotation-xml encoding=\"text/html\"><img src=x onerror=__xss(53)></annotation-xml></math>",
  "<template><img src=x onerror=__xss(54)></template>",
  // Markdown link and image injection
  "[click](javascript:__xss(55))",
  "[click](JaVaScRiPt:__xss(56))",
  "[click](&#106;avascript:__xss(57))",
  "[click](<javascript:__xss(58)>)",
  "[click](data:text/html;base64,PHNjcmlwdD5fX3hzcyg1OSk8L3NjcmlwdD4=)",
  "![x](javascript:__xss(60))",
  '![x](https://x.invalid/a.png"onerror="__xss(61))',
  "[ref]: javascript:__xss(62)\n\n[ref]",
  "<javascript:__xss(63)>",
  "javascript:__xss(64)",
  // HTML inside code, and math commands
  "`<img src=x onerror=__xss(65)>`",
  "```html\n<img src=x onerror=__xss(66)>\n```",
  "$\\href{javascript:__xss(67)}{x}$",
  "$$\\url{javascript:__xss(68)}$$",
  "$\\htmlStyle{background:url(javascript:__xss(69))}{x}$",
];
