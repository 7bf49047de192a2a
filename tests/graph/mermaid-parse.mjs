// Parses Mermaid texts with Mermaid's own parser, the one GitHub's
// renderer runs. Reads a JSON array of texts on standard input and prints
// a JSON array with, for each, {"ok": true, "type": diagram type,
// "config": the configuration its front matter and directives set} or
// {"ok": false, "error": the parser's message}. Run with the current
// directory holding node_modules/mermaid and node_modules/jsdom (Mermaid
// sanitizes labels with DOMPurify, which needs a DOM).
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';

const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const { default: mermaid } = await import('mermaid');

const texts = JSON.parse(readFileSync(0, 'utf8'));
const results = [];
for (const text of texts) {
  try {
    const parsed = await mermaid.parse(text);
    results.push({ ok: true, type: parsed.diagramType, config: parsed.config ?? {} });
  } catch (error) {
    results.push({ ok: false, error: String(error?.message ?? error) });
  }
}
console.log(JSON.stringify(results));
