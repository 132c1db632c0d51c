"""What "no executable content" means for a report, checked on markup (a file, or the DOM a browser built):
only known tags, no event-handler attribute, no URL-bearing attribute (but in-page jumps), one script element and it is the
inert JSON data block, the fetch-forbidding policy in the head."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from answerlens.report.embedded import DATA_ID
from answerlens.report.page import POLICY

ALLOWED_TAGS = {
    "html", "head", "meta", "title", "style", "body", "main", "header", "section", "div", "h1", "h2", "h3", "p",
    "span", "mark", "a", "i", "strong", "em", "code", "pre", "br", "ul", "li", "table", "thead", "tbody", "tr", "th",
    "td", "details", "summary", "fieldset", "legend", "label", "input", "figure", "figcaption", "svg", "rect",
    "line", "text", "script",
}
_IN_PAGE = re.compile(r"#al-(line|req)-\d+")
"""The one kind of link a report holds: a jump within the page (a citation chip to its context line, and back)."""
URL_ATTRIBUTES = {"href", "src", "srcset", "action", "formaction", "poster", "data", "xlink:href", "background",
                  "ping", "manifest", "codebase", "cite", "longdesc", "usemap", "lowsrc", "dynsrc"}


class Parsed(HTMLParser):
    """Every start tag with its attributes, the text of script elements, and all visible text."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[str] = []
        self.text: list[str] = []
        self._in: str | None = None
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        self._in = tag if tag in ("script", "style") else None

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            self.scripts.append(data)
        elif self._in is None:
            self.text.append(data)


def problems(markup: str) -> list[str]:
    """Everything that would make a report's markup capable of running or fetching anything."""
    parsed = Parsed(markup)
    found = []
    for tag, attrs in parsed.tags:
        if tag not in ALLOWED_TAGS:
            found.append(f"unexpected element <{tag}>")
        for name, value in attrs.items():
            if name.startswith("on"):
                found.append(f"event handler {name} on <{tag}>")
            if name in URL_ATTRIBUTES and not (tag == "a" and name == "href" and _IN_PAGE.fullmatch(value or "")):
                found.append(f"URL attribute {name}={value!r} on <{tag}>")
            if value and "javascript:" in value.lower().replace(" ", "") and name not in ("data-ref", "title",
                                                                                          "data-copy"):
                found.append(f"javascript: in {name} on <{tag}>")
        if tag == "input" and attrs.get("type") != "radio":
            found.append(f"an input that is not a radio button: {attrs}")
    scripts = [attrs for tag, attrs in parsed.tags if tag == "script"]
    if scripts != [{"type": "application/json", "id": DATA_ID}]:
        found.append(f"scripts other than the one data block: {scripts}")
    policies = [attrs.get("content") for tag, attrs in parsed.tags
                if tag == "meta" and attrs.get("http-equiv") == "Content-Security-Policy"]
    if policies != [POLICY]:
        found.append(f"the content security policy is not the report's: {policies}")
    return found


def visible_text(markup: str) -> str:
    return "".join(Parsed(markup).text)
