"""Tables printed to a terminal: as tables where they fit, as a block of lines per row where not."""

from __future__ import annotations

import textwrap

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

ROOMY = 120  # a terminal this wide shows a wide table's columns legibly, wrapped


def print_table(out: Console, table: Table) -> None:
    """Print `table` as it is where it fits the terminal, else as one block of lines per row.

    A wide table squeezed into 80 columns truncates every header to a letter and wraps its text a
    word a line; a block per row keeps every name and value whole: the row's first two cells (game
    and model) as its heading, then its short cells `column value` side by side and each long one
    on its own line, wrapped to the terminal. Output that is not a terminal is 200 columns wide."""
    needs = Measurement.get(out, out.options.update_width(10_000), table)  # unclamped
    if needs.minimum <= out.width and (needs.maximum <= out.width or out.width >= ROOMY):
        out.print(table)
        return
    if table.title:
        out.print(str(table.title), markup=False)
    names = [str(column.header) for column in table.columns]
    cells = [[Text.from_markup(str(cell)).plain for cell in column.cells] for column in table.columns]
    keys = min(2, len(names) - 1)  # every table here starts with game and model
    for row in zip(*cells):
        out.print("/".join(value for value in row[:keys] if value), markup=False)
        short = [f"{name} {value}" for name, value in zip(names[keys:], row[keys:]) if len(value) <= 24]
        long_ = [f"{name}: {value}" for name, value in zip(names[keys:], row[keys:]) if len(value) > 24]
        room = max(out.width - 2, 20)
        for line in _packed(short, " · ", room) + [wrapped for text in long_ for wrapped in textwrap.wrap(text, room, break_on_hyphens=False)]:
            out.print(f"  {line}", markup=False)


def _packed(items: list[str], separator: str, width: int) -> list[str]:
    """`items` joined by `separator` into lines of at most `width`, never splitting an item."""
    lines: list[str] = []
    for item in items:
        if lines and len(lines[-1]) + len(separator) + len(item) <= width:
            lines[-1] += separator + item
        else:
            lines.append(item)
    return lines
