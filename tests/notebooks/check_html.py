#!/usr/bin/python3
"""check_html.py DIR NOTEBOOK=N... -- each DIR/NOTEBOOK.html (written by
`jupyter nbconvert --execute --to html`) holds exactly N figures (<img>
elements with an embedded PNG or SVG in the notebook's outputs) and no
output on standard error (warnings, tracebacks).  Prints one line per
notebook; exits 1 if any check fails.
"""
import os
import sys
from html.parser import HTMLParser


class Figures(HTMLParser):
    def __init__(self):
        super().__init__()
        self.images = 0
        self.stderr = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "img" and (a.get("src") or "").startswith(("data:image/png;base64,",
                                                             "data:image/svg+xml")):
            self.images += 1
        if "application/vnd.jupyter.stderr" in (a.get("data-mime-type") or ""):
            self.stderr += 1


def main():
    folder, failures = sys.argv[1], 0
    for arg in sys.argv[2:]:
        name, want = arg.split("=")
        path = os.path.join(folder, name + ".html")
        if not os.path.isfile(path):
            print("FAIL %s: missing" % path)
            failures += 1
            continue
        f = Figures()
        with open(path, encoding="utf-8") as fh:
            f.feed(fh.read())
        ok = f.images == int(want) and f.stderr == 0
        print("%s %s: %d figures (expected %s), %d outputs on stderr"
              % ("ok  " if ok else "FAIL", path, f.images, want, f.stderr))
        failures += not ok
    print("%d notebooks checked, %d failed" % (len(sys.argv) - 2, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
