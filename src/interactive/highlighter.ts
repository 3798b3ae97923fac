import * as core from "highlight.js/lib/core";
import * as bash from "highlight.js/lib/languages/bash";
import * as c from "highlight.js/lib/languages/c";
import * as cpp from "highlight.js/lib/languages/cpp";
import * as csharp from "highlight.js/lib/languages/csharp";
import * as css from "highlight.js/lib/languages/css";
import * as diff from "highlight.js/lib/languages/diff";
import * as dockerfile from "highlight.js/lib/languages/dockerfile";
import * as go from "highlight.js/lib/languages/go";
import * as ini from "highlight.js/lib/languages/ini";
import * as java from "highlight.js/lib/languages/java";
import * as javascript from "highlight.js/lib/languages/javascript";
import * as json from "highlight.js/lib/languages/json";
import * as kotlin from "highlight.js/lib/languages/kotlin";
import * as makefile from "highlight.js/lib/languages/makefile";
import * as markdown from "highlight.js/lib/languages/markdown";
import * as php from "highlight.js/lib/languages/php";
import * as python from "highlight.js/lib/languages/python";
import * as ruby from "highlight.js/lib/languages/ruby";
import * as rust from "highlight.js/lib/languages/rust";
import * as shell from "highlight.js/lib/languages/shell";
import * as sql from "highlight.js/lib/languages/sql";
import * as swift from "highlight.js/lib/languages/swift";
import * as typescript from "highlight.js/lib/languages/typescript";
import * as xml from "highlight.js/lib/languages/xml";
import * as yaml from "highlight.js/lib/languages/yaml";
import type { Styles } from "./style.js";
import type { Segment } from "./styled-wrap.js";

/**
 * Syntax highlighting of a closed code fence: highlight.js's core with the languages models write
 * most (its aliases included: `ts`, `sh`, `py`, `yml`, `html`, …), the rest shown plain. Loaded by
 * the interactive mode only, after its first frame (render-modules.ts). cli-highlight was measured
 * and not taken: it loads all of highlight.js 10 plus chalk, parse5 and yargs (about twice the load
 * time) for the same result.
 */
type Api = typeof core.default;
type LanguageFn = Parameters<Api["registerLanguage"]>[1];

/** The core's API: its named export `HighlightJS` (untyped), as ES modules and the CLI's bundle both give it. */
const HighlightJS = ((core as unknown as { HighlightJS?: Api }).HighlightJS ?? core.default) as Api;

/** A language module's default export, as ES modules give it and as the CLI's bundle does (one level down). */
function languageOf(module: unknown): LanguageFn {
  const first = (module as { default: unknown }).default;
  return (typeof first === "function" ? first : (first as { default: LanguageFn }).default) as LanguageFn;
}

const LANGUAGES: Record<string, unknown> = {
  bash,
  c,
  cpp,
  csharp,
  css,
  diff,
  dockerfile,
  go,
  ini,
  java,
  javascript,
  json,
  kotlin,
  makefile,
  markdown,
  php,
  python,
  ruby,
  rust,
  shell,
  sql,
  swift,
  typescript,
  xml,
  yaml,
};
for (const [name, module] of Object.entries(LANGUAGES))
  HighlightJS.registerLanguage(name, languageOf(module));

/** Scope → style, in the 16 base colours (they follow the terminal's theme, light or dark). */
function styleOf(scope: string, styles: Styles): ((text: string) => string) | undefined {
  switch (scope) {
    case "keyword":
    case "selector-tag":
    case "meta-keyword":
    case "doctag":
      return styles.magenta;
    case "string":
    case "regexp":
    case "addition":
    case "symbol":
    case "char":
      return styles.green;
    case "number":
    case "literal":
    case "attr":
    case "attribute":
    case "property":
    case "variable.constant":
      return styles.cyan;
    case "title":
    case "section":
    case "name":
    case "tag":
      return styles.blue;
    case "built_in":
    case "type":
    case "class":
    case "selector-class":
      return styles.yellow;
    case "comment":
    case "quote":
    case "meta":
      return styles.dim;
    case "deletion":
      return styles.red;
    default:
      return undefined;
  }
}

const ENTITIES: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', "#x27": "'", "#39": "'" };

/**
 * `code` as styled segments for `language` (a fence's info string), or undefined when the language
 * is not one of those loaded (the code is then shown plain).
 */
export function highlightCode(code: string, language: string, styles: Styles): Segment[] | undefined {
  const name = language.trim().split(/\s/)[0]?.toLowerCase() ?? "";
  if (name === "" || !HighlightJS.getLanguage(name)) return undefined;
  const html = HighlightJS.highlight(code, { language: name, ignoreIllegals: true }).value;
  // highlight.js's output is the code with every `<`, `>`, `&`, quote escaped and scopes as spans.
  const segments: Segment[] = [];
  const stack: (((text: string) => string) | undefined)[] = [];
  const current = () => stack.findLast((style) => style !== undefined);
  for (const match of html.matchAll(/<span class="([^"]*)">|<\/span>|([^<]+)/g)) {
    if (match[1] !== undefined) {
      const scope = match[1].split(" ")[0]!.replace(/^hljs-/, "");
      stack.push(styleOf(scope, styles));
    } else if (match[2] !== undefined) {
      const text = match[2].replace(
        /&(amp|lt|gt|quot|#x27|#39);/g,
        (_: string, entity: string) => ENTITIES[entity]!,
      );
      const style = current();
      segments.push(style ? { text, style } : { text });
    } else stack.pop();
  }
  return segments;
}
