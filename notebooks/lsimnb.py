"""lsimnb.py -- what the notebooks beside this file share: open an lsim
database read-only, pick a run, read a query into pandas, order group names
naturally, give groups and nodes their colours, save a figure.

Python 3 with pandas and matplotlib from Debian's packages; nothing else.
"""
import os
import re
import sqlite3
from collections import namedtuple

import matplotlib
import pandas as pd

Run = namedtuple("Run", "run scenario seed")

# matplotlib's "tab10" cycle: the same colours as `lsim plot` (sim/report/svg.c).
PALETTE = [matplotlib.colors.to_hex(c) for c in matplotlib.colormaps["tab10"].colors]
NO_GROUP = "#b0b0b0"


def open_db(path, how_to_make=None):
    """A read-only connection; a clear error when the file is missing."""
    if not os.path.isfile(path):
        hint = "; make it with `%s` from the top of the repository" % how_to_make \
            if how_to_make else ""
        raise FileNotFoundError("%s does not exist%s" % (path, hint))
    return sqlite3.connect("file:%s?mode=ro" % os.path.abspath(path), uri=True)


def has_table(con, name):
    return con.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?",
                       (name,)).fetchone() is not None


def need_tables(con, *names):
    missing = [n for n in names if not has_table(con, n)]
    if missing:
        raise ValueError("the database has no table %s: is it the right kind of database?"
                         % ", ".join(missing))


def read(con, sql, params=()):
    return pd.read_sql_query(sql, con, params=params)


def pick_run(con, run=None):
    """The given run of the `runs` table, or the first."""
    need_tables(con, "runs")
    if run is None:
        row = con.execute("SELECT run, scenario, seed FROM runs ORDER BY run LIMIT 1").fetchone()
    else:
        row = con.execute("SELECT run, scenario, seed FROM runs WHERE run = ?",
                          (run,)).fetchone()
    if row is None:
        raise ValueError("no run %s in the database" % ("at all" if run is None else run))
    return Run(*row)


def natural_key(name):
    """Sorts "g2" before "g10"."""
    return [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", str(name))]


def lane_name(node, consumer):
    return "n%d/c%d" % (node, consumer)


def group_colors(groups):
    """Group name -> colour, in natural order (ten colours, then again)."""
    ordered = sorted(groups, key=natural_key)
    return {g: PALETTE[i % len(PALETTE)] for i, g in enumerate(ordered)}


def node_color(node):
    return PALETTE[(int(node) - 1) % len(PALETTE)]


def save(fig, figdir, name):
    """Writes fig as FIGDIR/NAME.png when figdir is set (for the README)."""
    if figdir:
        os.makedirs(figdir, exist_ok=True)
        fig.savefig(os.path.join(figdir, name + ".png"), dpi=72, bbox_inches="tight")
