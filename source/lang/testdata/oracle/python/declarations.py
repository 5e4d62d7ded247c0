"""Print the declarations Python's own parser finds in each file named on stdin: one line per
file, its path and then the qualified names of the classes and functions defined at module
or class level (through if, try, with and loop bodies, never inside a function), tab-separated.
A file ast cannot parse is printed with the single name !error."""
import ast
import sys


def names(body, prefix, out):
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(prefix + node.name)
        elif isinstance(node, ast.ClassDef):
            out.append(prefix + node.name)
            names(node.body, prefix + node.name + ".", out)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                sub = getattr(node, field, None)
                if isinstance(sub, list):
                    names(sub, prefix, out)


for line in sys.stdin:
    path = line.rstrip("\n")
    try:
        with open(path, "rb") as f:
            tree = ast.parse(f.read(), filename=path)
    except (SyntaxError, ValueError):
        print(path + "\t!error")
        continue
    out = []
    names(tree.body, "", out)
    print("\t".join([path] + sorted(set(out))))
