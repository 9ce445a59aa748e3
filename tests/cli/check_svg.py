#!/usr/bin/python3
"""check_svg.py FILE.svg KIND [EXPECTATION]... -- parses an `lsim plot`
picture with a real XML parser (xml.etree) and checks what it shows.

Every picture: an <svg> root in the SVG namespace with width, height and a
viewBox; a <title>; numeric tick labels on its axes.  Expectations (KEY=VALUE):

  bars=N           gantt: N message bars (<rect class="bar">)
  lanes=N          gantt: N consumer lanes (labels "nX/cY")
  groups=N         gantt: the bars name N distinct groups
  consumers=SPEC   gantt: "1:1,4,6 2:2,5": consumer C of node 1 ran these messages
  times=SPEC       gantt: "1:1.000-1001.000": message 1 began and ended then (ms)
  nodes=N          timeline: the legend names N nodes
  scaling=N        timeline: N scaling markers (0: the "no decisions" note)
  waiting=R:P      timeline, one queue: the panel of waiting messages draws the
                   ready line (solid) with at most R pixels of rise above its
                   lowest point, and the prefetched line (dashed) with at least
                   P; its legend names both
  cells=N          groups: N heat-map cells; cellsum=N: their counts add up to N
  rows=N           groups: N heat-map rows
  points=N         sweep: N point markers per panel (<rect class="point">, with a
                   title "point K: ..."); panels=N: N panels
  misses=N         sweep: N of the markers (over every panel) are hollow (miss the
                   requirement)
  answer=WORD      sweep: the ringed point is labelled WORD (answer, closest)

Exits 1 with one line per failed check.
"""
import re
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
BAR_TITLE = re.compile(r"^msg (\d+), group (\S+), node (\d+) consumer (\d+): "
                       r"([0-9.]+) ms to ([0-9.]+) ms$")


def title_of(el):
    t = el.find(NS + "title")
    return t.text if t is not None else None


def texts(root):
    return [t.text or "" for t in root.iter(NS + "text")]


def common(root, errors):
    if root.tag != NS + "svg":
        errors.append("root is %s, not svg" % root.tag)
    for attr in ("width", "height", "viewBox"):
        if attr not in root.attrib:
            errors.append("no %s on <svg>" % attr)
    title = root.find(NS + "title")
    if title is None or not (title.text or "").strip():
        errors.append("no <title>")
    numeric = [t for t in texts(root) if re.fullmatch(r"-?[0-9]+(\.[0-9]+)?", t)]
    if len(numeric) < 2:
        errors.append("fewer than 2 numeric tick labels")


def gantt_bars(root):
    bars = []
    for r in root.iter(NS + "rect"):
        if "bar" in r.get("class", "").split():
            m = BAR_TITLE.match(title_of(r) or "")
            bars.append(m.groups() if m else None)
    return bars


def check_gantt(root, key, value, errors):
    bars = gantt_bars(root)
    if None in bars:
        errors.append("a bar's title does not read 'msg N, group G, node N consumer C: ...'")
        return
    if key == "bars" and len(bars) != int(value):
        errors.append("%d bars, expected %s" % (len(bars), value))
    elif key == "lanes":
        lanes = [t for t in texts(root) if re.fullmatch(r"n\d+/c\d+", t)]
        if len(lanes) != int(value):
            errors.append("%d lanes, expected %s" % (len(lanes), value))
    elif key == "groups":
        groups = {b[1] for b in bars if b[1] != "-"}
        if len(groups) != int(value):
            errors.append("%d groups, expected %s" % (len(groups), value))
    elif key == "consumers":
        got = {}
        for msg, _g, node, cons, _b, _e in bars:
            if node == "1":
                got.setdefault(int(cons), []).append(int(msg))
        want = {int(c): [int(m) for m in ms.split(",")]
                for c, ms in (part.split(":") for part in value.split())}
        got = {c: sorted(ms) for c, ms in got.items()}
        if got != want:
            errors.append("consumers ran %s, expected %s" % (got, want))
    elif key == "times":
        seen = {int(b[0]): (b[4], b[5]) for b in bars}
        for part in value.split():
            msg, span = part.split(":")
            if seen.get(int(msg)) != tuple(span.split("-")):
                errors.append("msg %s: %s, expected %s" % (msg, seen.get(int(msg)), span))
    elif key != "bars":
        errors.append("unknown expectation %s for a gantt" % key)


def check_timeline(root, key, value, errors):
    if key == "nodes":
        nodes = [t for t in texts(root) if re.fullmatch(r"node \d+", t)]
        if len(nodes) != int(value):
            errors.append("%d nodes in the legend, expected %s" % (len(nodes), value))
    elif key == "scaling":
        marks = [p for p in root.iter(NS + "polygon") if title_of(p)]
        if len(marks) != int(value):
            errors.append("%d scaling markers, expected %s" % (len(marks), value))
        if int(value) == 0 and "no decisions recorded" not in texts(root):
            errors.append("no note saying that no scaling decision was recorded")
    elif key == "waiting":
        rmax, pmin = (float(x) for x in value.split(":"))
        lines = list(root.iter(NS + "polyline"))
        if len(lines) < 2:
            errors.append("fewer than two lines")
            return
        ready, pre = lines[0], lines[1]   # the first panel's lines, drawn first
        def rise(line):
            ys = [float(p.split(",")[1]) for p in line.get("points").split()]
            return max(ys) - min(ys)
        if ready.get("stroke-dasharray") or not pre.get("stroke-dasharray"):
            errors.append("the first two lines are not ready (solid) and prefetched (dashed)")
        if rise(ready) > rmax:
            errors.append("the ready line rises %.1f px, expected at most %g" % (rise(ready), rmax))
        if rise(pre) < pmin:
            errors.append("the prefetched line rises %.1f px, expected at least %g" % (rise(pre), pmin))
        for label in ("ready in the broker", "in consumers' buffers"):
            if label not in texts(root):
                errors.append("the legend does not name '%s'" % label)
    else:
        errors.append("unknown expectation %s for a timeline" % key)


def check_groups(root, key, value, errors):
    cells = [r for r in root.iter(NS + "rect") if r.get("class") == "cell"]
    if key == "cells" and len(cells) != int(value):
        errors.append("%d cells, expected %s" % (len(cells), value))
    elif key == "cellsum":
        total = sum(int(re.search(r": (\d+) messages$", title_of(c)).group(1)) for c in cells)
        if total != int(value):
            errors.append("cells count %d messages, expected %s" % (total, value))
    elif key == "rows":
        rows = {c.get("y") for c in cells}
        if len(rows) != int(value):
            errors.append("%d rows, expected %s" % (len(rows), value))
    elif key != "cells":
        errors.append("unknown expectation %s for a groups picture" % key)


def check_sweep(root, key, value, errors):
    pts = [r for r in root.iter(NS + "rect") if "point" in r.get("class", "").split()]
    titles = [title_of(r) or "" for r in pts]
    if key == "points":
        first = [t for t in titles if t.startswith("point ")]
        panels = len(first) // int(value) if int(value) else 0
        if len(first) % int(value) != 0 or panels < 1:
            errors.append("%d point markers, not a multiple of %s" % (len(first), value))
    elif key == "panels":
        n = len([t for t in texts(root) if t in ("p99_latency_ms", "consumers_max", "consumer_seconds")])
        if n != int(value):
            errors.append("%d panels, expected %s" % (n, value))
    elif key == "misses":
        n = len([r for r in pts if "miss" in r.get("class").split()])
        if n != int(value):
            errors.append("%d hollow markers, expected %s" % (n, value))
    elif key == "answer":
        if value not in texts(root):
            errors.append("no point labelled %s" % value)
    else:
        errors.append("unknown expectation %s for a sweep" % key)


def main():
    path, kind = sys.argv[1], sys.argv[2]
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        print("%s: not well-formed XML: %s" % (path, e))
        return 1
    errors = []
    common(root, errors)
    checker = {"gantt": check_gantt, "timeline": check_timeline, "groups": check_groups,
               "sweep": check_sweep}[kind]
    for arg in sys.argv[3:]:
        key, value = arg.split("=", 1)
        checker(root, key, value, errors)
    for e in errors:
        print("%s: %s" % (path, e))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
