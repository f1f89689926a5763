"""JUnit XML, the report every CI system reads.

One ``testsuite`` per file (its path as the name), one ``testcase`` per
expectation (name: the expectation's text; classname: the file).  A failed
expectation is a ``failure`` whose message is why it failed and whose text
gives ``FILE:LINE``, the expectation and the decisions about what it names;
an expectation whose mechanism is not simulated yet is ``skipped``; a
refused file is one testcase holding an ``error`` per error found, with
``FILE:LINE:COLUMN``; ``check`` gives one testcase per file.  No ``time`` or
``timestamp`` attribute is written, so the same files give the same bytes.
The document is valid against ``schemas/junit.xsd`` (tested).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from .formats import Format, register
from .model import FileReport, Summary

__all__ = ["JunitFormat"]

# XML 1.0 forbids most control characters, even escaped; they are dropped.
_ILLEGAL = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text: str) -> str:
    return _ILLEGAL.sub("", text)


def _suite(report: FileReport, command: str) -> ET.Element:
    suite = ET.Element("testsuite", name=_clean(report.path))
    counts = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    if report.title:
        props = ET.SubElement(suite, "properties")
        ET.SubElement(props, "property", name="title", value=_clean(report.title))
    if report.problems:
        case = ET.SubElement(suite, "testcase", name=_clean(report.path),
                             classname=_clean(report.path))
        for p in report.problems:
            where = f"{p.file}:{p.line}:{p.column}" if p.line else p.file
            err = ET.SubElement(case, "error", message=_clean(f"{where}: {p.message}"),
                                type=p.kind)
            err.text = _clean(p.text)
        counts["tests"] += 1
        counts["errors"] += 1
    elif command == "check" or not report.expectations:
        ET.SubElement(suite, "testcase", name=_clean(report.path), classname=_clean(report.path))
        counts["tests"] += 1
    for x in report.expectations:
        case = ET.SubElement(suite, "testcase", name=_clean(x.text),
                             classname=_clean(report.path))
        counts["tests"] += 1
        if x.unsupported:
            ET.SubElement(case, "skipped", message=_clean(x.message))
            counts["skipped"] += 1
        elif not x.passed:
            fail = ET.SubElement(case, "failure", message=_clean(x.message), type="expectation")
            body = [f"{report.path}:{x.line}: {x.text}", x.message]
            if x.decisions:
                body += ["decisions:", *(f"  {d}" for d in x.decisions)]
            fail.text = _clean("\n".join(body))
            counts["failures"] += 1
    for key, value in counts.items():
        suite.set(key, str(value))
    return suite


@register("junit")
class JunitFormat(Format):
    """``testsuites`` > ``testsuite`` per file > ``testcase`` per expectation."""

    def begin(self, total: int) -> None:
        """Start the document (written whole at the end: the root holds the totals)."""
        self.suites: list[ET.Element] = []

    def file(self, report: FileReport) -> None:
        """Build the file's testsuite."""
        self.suites.append(_suite(report, self.options.command))

    def end(self, summary: Summary) -> None:
        """Write the whole document."""
        root = ET.Element("testsuites", name="kruleset")
        for key in ("tests", "failures", "errors", "skipped"):
            root.set(key, str(sum(int(s.get(key, "0")) for s in self.suites)))
        root.extend(self.suites)
        ET.indent(root)
        self.out.write('<?xml version="1.0" encoding="UTF-8"?>\n')
        self.out.write(ET.tostring(root, encoding="unicode"))
        self.out.write("\n")
        self.out.flush()
