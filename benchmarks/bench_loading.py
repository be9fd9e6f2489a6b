"""Reading YAML: the catalog's files, and one 9 MiB scalar, through each way of loading them.

Run: python benchmarks/bench_loading.py [--repeat N] [--without-libyaml]

Every YAML file of the catalog (``cases/**/*.yaml``) is read, as text, by:

* PyYAML's own parser and our composing loader: the loader before it used libyaml;
* libyaml's parser and our composing loader: what reads a document with anchors, tags or a
  problem to report;
* ``yaml.CSafeLoader``: libyaml's parser and composer with PyYAML's safe constructor, no
  limits and no checks (the floor PyYAML offers, for comparison);
* ``reference.parse_document``: the loader in use (libyaml's events read straight into data).

Prints the median of N runs of each and its ratio to ``CSafeLoader``; then the time and the
peak of Python allocations (tracemalloc; libyaml's own buffers are not traced) of a document
holding one 9 MiB scalar, and of one holding 100,000 values, the limit (``--without-libyaml``
adds both through PyYAML's own parser, which takes several seconds each).
"""

from __future__ import annotations

import argparse
import functools
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path

import yaml
from _timing import median_seconds

import reference
from reference._loading import yaml_composer, yaml_reader

ROOT = Path(__file__).resolve().parents[1]
SCALAR_BYTES = 9 * 1024 * 1024


def catalog_texts() -> list[str]:
    """The catalog's YAML files that the loader accepts (a few packs are broken on purpose)."""
    texts = []
    for path in sorted(ROOT.glob("cases/**/*.yaml")):
        text = path.read_text(encoding="utf-8")
        try:
            reference.parse_document(text, format="yaml")
        except reference.PackLoadError:
            continue
        texts.append(text)
    return texts


def read_all(load: Callable[[str], object], texts: list[str]) -> None:
    """Read every text with ``load``."""
    for text in texts:
        load(text)


def composing(parser: type) -> Callable[[str], object]:
    """Our composing loader over ``parser``, as a function of the text."""

    def load(text: str) -> object:
        return yaml_composer.compose_and_construct(text, None, reference.DEFAULT_LIMITS, parser)

    return load


def at_the_value_limit() -> str:
    """A document of just under 100,000 values (the default limit): 16,600 short lines."""
    return "".join(f"k{i}: [{i}, v{i}, {i}.5, true]\n" for i in range(16_600))


def big_figures(text: str, parser: type) -> tuple[float, float]:
    """Seconds and peak MiB of Python allocations to read ``text`` with ``parser``.

    Two reads: one timed, one traced (tracing every allocation slows it down several times).
    """
    data = text.encode()
    saved = yaml_reader.PARSER
    yaml_reader.PARSER = parser
    try:
        start = time.perf_counter()
        reference.parse_document(data, format="yaml")
        seconds = time.perf_counter() - start
        tracemalloc.start()
        reference.parse_document(data, format="yaml")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        yaml_reader.PARSER = saved
    return seconds, peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--without-libyaml", action="store_true", help="also time the fallback")
    args = parser.parse_args()
    texts = catalog_texts()
    size = sum(len(text.encode()) for text in texts)
    print(f"catalog: {len(texts)} YAML files, {size / 1024:,.0f} KiB; median of {args.repeat}")

    ways: list[tuple[str, Callable[[str], object]]] = [
        ("PyYAML parser + our composer (before)", composing(yaml_reader.PurePythonParser)),
    ]
    if yaml_reader.PARSER is not yaml_reader.PurePythonParser:
        ways.append(("libyaml parser + our composer", composing(yaml_reader.PARSER)))
        ways.append(("yaml.CSafeLoader (no limits)", lambda t: yaml.load(t, yaml.CSafeLoader)))
    else:
        print("this PyYAML has no libyaml: only the fallback can be measured")
    ways.append(("reference.parse_document", lambda t: reference.parse_document(t, format="yaml")))
    figures = {
        label: median_seconds(functools.partial(read_all, load, texts), args.repeat)
        for label, load in ways
    }
    floor = figures.get("yaml.CSafeLoader (no limits)")
    for label, seconds in figures.items():
        ratio = f"  ({seconds / floor:.2f}x CSafeLoader)" if floor else ""
        print(f"{label:<40} {seconds * 1000:8.1f} ms{ratio}")

    parsers = [yaml_reader.PARSER]
    if args.without_libyaml and yaml_reader.PARSER is not yaml_reader.PurePythonParser:
        parsers.append(yaml_reader.PurePythonParser)
    big = {
        "one 9 MiB scalar": "a: " + "x" * SCALAR_BYTES + "\n",
        "100,000 values": at_the_value_limit(),
    }
    for used in parsers:
        name = "PyYAML's parser" if used is yaml_reader.PurePythonParser else "libyaml"
        for label, text in big.items():
            seconds, peak = big_figures(text, used)
            print(f"{label}, {name}: {seconds:.2f} s, peak {peak:.0f} MiB traced")


if __name__ == "__main__":
    main()
