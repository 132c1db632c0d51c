"""The requirements table and its chips: each chip drawn as its token's decision, a located chip a link to its
context line, and the line's requirement number a link back."""

from __future__ import annotations

import re

from answerlens.html.highlight import highlight, requirement_rows
from answerlens.html.markup import context_html
from answerlens.html.requirements import requirements_html
from tests.report.builders import replayed


def test_a_chip_links_to_its_context_line_and_the_line_links_back() -> None:
    """A located chip is a link to the id of the line its label is on; that line's requirement number in the
    gutter links back to the requirement's row."""
    bundle, assessment = replayed("conflicting_deploy_freeze")
    context = bundle.exact_context
    requirements = assessment.requirements
    table = requirements_html(requirement_rows(requirements, context))
    lines = re.findall(r'<a class="al-jump" href="#al-line-(\d+)" data-jump="\1"', table)
    cited = [context[:d.span.start].count("\n") + 1 for d in requirements[0].citations if d.span is not None]
    assert [int(line) for line in lines] == cited and len(cited) == 2
    page = context_html(context, highlight(context, [r.citations for r in requirements]))
    for line in cited:
        assert f'data-line="{line}" id="al-line-{line}"' in page
    assert page.count('href="#al-req-0"') == 2 and 'id="al-req-0"' in table
