"""mutate_ops — the mutation operators of scripts/mutate-random, over C and CUDA source text.

sites(file, text) lists every mutant of a file as a Site: a span of the original text and its
replacement. The operators see a masked copy of the text in which comments, string and character
literals are blanked, and skip preprocessor lines, asserts and logging calls, so a mutant is always a
change to code that runs. self_test() plants each operator into a small C snippet and compiles it."""
import os, re, subprocess, sys, tempfile

KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do", "else", "case", "_Alignof",
            "alignof", "defined", "__launch_bounds__", "_Static_assert", "static_assert", "typeof"}
# calls whose whole span is left alone: messages, not behaviour a test of results could see
LOGGING = {"__attribute__", "printf", "fprintf", "vfprintf", "puts", "fputs", "perror", "scene_errorf", "assert",
           "static_assert", "_Static_assert"}
# snprintf into an error-message buffer is a message too
ERRBUF = re.compile(r"snprintf\s*\(\s*(err|msg|error|errbuf|why)\w*\s*,")
DECL = re.compile(r"^(?:(?:const|static|unsigned|signed|long|short|struct|enum|union|volatile|register|extern|inline|"
                  r"__device__|__shared__|__host__|__global__)\s+)*[A-Za-z_]\w*[\s\*]+\**[A-Za-z_]\w*\s*(?:=|;|\[|,)")


# `float c[` / `char *buf[`: an array declared (a variable or a parameter), not indexed
ARRAY_DECL = re.compile(r"(?<![\w>.])(?!return\b|case\b|else\b)[A-Za-z_]\w*\s+\**\s*[A-Za-z_]\w*\[$")
# `void f(int a);` / `bool f(...) __attribute__(...);`: a prototype, which a drop only makes stillborn
PROTO = re.compile(r"^(?!return\b)[A-Za-z_][\w\s\*]*[\s\*][A-Za-z_]\w*\s*\(.*\)[^;()]*(?:\(\(.*\)\))?\s*;$")


class Site:
    def __init__(self, file, text, start, end, repl, op):
        self.file, self.start, self.end, self.repl, self.op = file, start, end, repl, op
        self.line = text.count("\n", 0, start) + 1
        self._text = text

    def apply(self, text):
        return text[:self.start] + self.repl + text[self.end:]

    def _span(self, text, end):
        a = text.rfind("\n", 0, self.start) + 1
        b = text.find("\n", end)
        return text[a:b if b >= 0 else len(text)]

    def before_line(self):
        return " ".join(self._span(self._text, self.end).split())

    def after_line(self):
        mutated = self.apply(self._text)
        return " ".join(self._span(mutated, self.start + len(self.repl)).split())

    def describe(self):
        return "%s:%d: %s -> %s" % (self.file, self.line, self.before_line(), self.after_line())

    def key(self):
        return (self.start, self.end, self.repl)


def mask(text):
    """The text with comments, strings and char literals blanked (quotes kept), same length and lines."""
    out, i, n = list(text), 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out[i:j] = " " * (j - i)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out[i:j] = [ch if ch == "\n" else " " for ch in text[i:j]]
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            out[i + 1:j] = " " * (j - i - 1)
            i = j + 1
        else:
            i += 1
    return "".join(out)


def matching_paren(code, i):
    """Index of the ')' closing the '(' at i, or -1."""
    depth = 0
    for j in range(i, len(code)):
        if code[j] in "([{":
            depth += 1
        elif code[j] in ")]}":
            depth -= 1
            if depth == 0:
                return j
    return -1


def skipped_spans(code):
    """Character spans no operator may touch: preprocessor lines (with continuations), logging calls
    and asserts (to their closing parenthesis)."""
    spans, pos = [], 0
    lines = code.split("\n")
    cont = False
    for l in lines:
        if cont or l.lstrip().startswith("#"):
            spans.append((pos, pos + len(l)))
            cont = l.rstrip().endswith("\\")
        pos += len(l) + 1
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", code):
        if m.group(1) in LOGGING or ERRBUF.match(code, m.start()):
            e = matching_paren(code, m.end() - 1)
            spans.append((m.start(), e + 1 if e >= 0 else len(code)))
    return spans


def _ops(file, text, code):
    """Yield (start, end, replacement, op) over the masked code."""
    rel = {"<": "<=", "<=": "<", ">": ">=", ">=": ">", "==": "!=", "!=": "=="}
    for m in re.finditer(r"(?<=\s)(<=|>=|==|!=|<|>)(?=\s)", code):
        yield m.start(), m.end(), rel[m.group(1)], "relop"
    arith = {"+": "-", "-": "+", "*": "/", "/": "*", "+=": "-=", "-=": "+=", "*=": "/=", "/=": "*="}
    for m in re.finditer(r"(?<=[\w\)\]] )(\+=|-=|\*=|/=|\+|-|\*|/)(?= )", code):
        yield m.start(), m.end(), arith[m.group(1)], "arith"
    for m in re.finditer(r"&&|\|\|", code):
        yield m.start(), m.end(), "||" if m.group() == "&&" else "&&", "logic"
    for m in re.finditer(r"!(?!=)", code):
        yield m.start(), m.end(), "", "negate"
    for m in re.finditer(r"(?<![\w.])(0[xX][0-9a-fA-F]+|\d+)([uUlL]*)(?![\w.])", code):
        if code[m.start() - 1] == "[" and code[m.end():m.end() + 1] == "]" and (
                ARRAY_DECL.search(code, 0, m.start()) or re.search(r",\s*\**\s*[A-Za-z_]\w*\[$", code[:m.start()])
                and DECL.match(_line_of(code, m.start()))):
            continue  # an array's size where it is declared: a parameter's is ignored, one more is equivalent
        lit = m.group(1)
        v = int(lit, 16) if lit[:2] in ("0x", "0X") else int(lit, 8) if lit.startswith("0") else int(lit)
        suf = m.group(2)
        spell = (lambda x: oct(x).replace("0o", "0")) if lit.startswith("0") and len(lit) > 1 and lit[1] in "01234567" else str
        yield m.start(), m.end(), spell(v + 1) + suf, "offby1"
        if v > 0:
            yield m.start(), m.end(), spell(v - 1) + suf, "offby1"
        yield m.start(), m.end(), ("1" if v == 0 else "0") + suf, "const"
    for m in re.finditer(r"(?<![\w.])(\d+\.\d*(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)([fF]?)(?![\w.])",
                         code):
        v = float(m.group(1))
        nv = 1.0 if v == 0.0 else v * 2.0
        yield m.start(), m.end(), repr(nv) + m.group(2), "const"
    for m in re.finditer(r"\b(true|false)\b", code):
        yield m.start(), m.end(), "false" if m.group() == "true" else "true", "bool"
    yield from _swaps(code)
    yield from _drops(code)


def _line_of(code, i):
    a = code.rfind("\n", 0, i) + 1
    b = code.find("\n", i)
    return code[a:b if b >= 0 else len(code)].strip()


def _swaps(code):
    for m in re.finditer(r"\b([A-Za-z_]\w*)\s*\(", code):
        if m.group(1) in KEYWORDS:
            continue
        before = code[:m.start()].rstrip()
        prev_word = re.search(r"([A-Za-z_]\w*)$", before)
        if before.endswith("*") and prev_word is None or prev_word and prev_word.group(1) != "return":
            continue  # a declaration or definition (`int f(`, `*f(`), not a call
        open_ = m.end() - 1
        close = matching_paren(code, open_)
        if close < 0:
            continue
        args, depth, a = [], 0, open_ + 1
        for j in range(open_ + 1, close):
            ch = code[j]
            if ch in "([{":
                depth += 1
            elif ch in ")]}":
                depth -= 1
            elif ch == "," and depth == 0:
                args.append((a, j))
                a = j + 1
        args.append((a, close))
        spans = []
        for s, e in args:  # trim whitespace, keep the layout between the arguments
            while s < e and code[s].isspace():
                s += 1
            while e > s and code[e - 1].isspace():
                e -= 1
            spans.append((s, e))
        for (s1, e1), (s2, e2) in zip(spans, spans[1:]):
            if s1 < e1 and s2 < e2 and code[s1:e1] != code[s2:e2]:
                yield s1, e2, ("SWAP", s1, e1, s2, e2), "swap"


def _drops(code):
    pos, prev = 0, ";"
    for l in code.split("\n"):
        s = l.strip()
        start_ok = prev.endswith((";", "{", "}", ":")) or re.match(r"^(if|for|while)\b.*\)$|^else$", prev)
        if (s.endswith(";") and start_ok and s.count("(") == s.count(")") and s != ";"
                and not re.match(r"^(return\s+\S|typedef\b|extern\b|case\b|default\b|goto\b)", s)
                and not DECL.match(s) and not PROTO.match(s) and not re.search(r"\(\*\w+\)\s*\(", s) and "{" not in s and "}" not in s):
            a = pos + l.index(s)
            yield a, a + len(s), ";", "drop"
        if s and not s.startswith("#"):
            prev = s
        pos += len(l) + 1


def sites(file, text):
    code = mask(text)
    skip = skipped_spans(code)
    out, seen = [], set()
    for start, end, repl, op in _ops(file, text, code):
        if any(a <= start < b or a < end <= b for a, b in skip):
            continue
        if isinstance(repl, tuple):  # swap: rebuild from the original text
            _, s1, e1, s2, e2 = repl
            repl = text[s2:e2] + text[e1:s2] + text[s1:e1]
        if text[start:end] == repl or (start, end, repl) in seen:
            continue
        seen.add((start, end, repl))
        out.append(Site(file, text, start, end, repl, op))
    return out


SNIPPET = r'''#include <stdbool.h>
#include <stdio.h>
#include <assert.h>
#define LIMIT(a, b) ((a) < (b) ? (a) : (b)) /* a macro: never mutated */
/* a comment with a < b && c || !d, 1 + 2 and true */
static int add(int a, int b) { return a - b; }
static float scale(float x, float y) { return x * 2.0f / y; }
static bool check(int n, const char *s)
{
    // another comment: x == y, 42
    const char *msg = "a string: i <= n && 0.5f != 1";
    char c = '<';
    int total = 0;
    assert(n >= 0 && "asserts are left alone");
    for (int i = 0; i < n; i++)
        total += add(i, n);
    if (total > 10 || !s)
        total = 0;
    fprintf(stderr, "log: %d > %d\n", total, n + 1);
    total = total * 3;
    (void)msg;
    (void)c;
    return total == 0 ? true : false;
}
int main(void) { return check(3, "x") != scale(1.0f, 2.0f); }
'''
EXPECTED_OPS = {"relop", "arith", "logic", "negate", "offby1", "const", "bool", "swap", "drop"}


def _protected(text):
    """The comments, strings, char literals and preprocessor/assert/log spans of a text, in order."""
    code = mask(text)
    lit = [text[i] for i in range(len(text)) if code[i] != text[i]]
    guarded = [text[a:b] for a, b in skipped_spans(code)]
    return "".join(lit), guarded


def self_test():
    """Each operator plants at least one mutant in SNIPPET; every mutant differs from the snippet,
    compiles, and leaves comments, strings, macros, asserts and logging calls byte for byte."""
    cc = os.environ.get("CC", "cc")
    all_sites = sites("snippet.c", SNIPPET)
    failures = []
    missing = EXPECTED_OPS - {s.op for s in all_sites}
    if missing:
        failures.append("operators that planted nothing: %s" % ", ".join(sorted(missing)))
    lit0, guarded0 = _protected(SNIPPET)
    with tempfile.TemporaryDirectory() as tmp:
        for s in all_sites:
            m = s.apply(SNIPPET)
            if m == SNIPPET:
                failures.append("unchanged: " + s.describe())
                continue
            lit, guarded = _protected(m)
            if lit != lit0 or guarded != guarded0:
                failures.append("mutated a comment, string, macro, assert or log: " + s.describe())
            path = os.path.join(tmp, "m.c")
            open(path, "w").write(m)
            r = subprocess.run([cc, "-std=c11", "-fsyntax-only", "-w", path], capture_output=True, text=True)
            if r.returncode:
                failures.append("does not compile: %s\n%s" % (s.describe(), r.stderr[-400:]))
    # the snippet's protected regions are where an operator would fire if the masking failed
    for word in ("42", "0.5f", "<=", "LIMIT"):
        if any(word in SNIPPET[s.start:s.end] for s in all_sites):
            failures.append("a site reaches into protected text: %s" % word)
    for f in failures:
        print("FAIL", f)
    print("mutate-random self-test: %d mutants, %d operators, %d failures" %
          (len(all_sites), len({s.op for s in all_sites}), len(failures)))
    return 1 if failures else 0
