/* yaml_words.c -- libyaml's raw syntax messages put in plain words (see
 * yaml_words.h).  The parser's own words follow in parentheses, so nothing
 * it said is lost. */
#include "input/yaml_words.h"

#include <string.h>

/* The first line up to `last` (1-based) whose indentation holds a tab, or 0. */
static int tab_line(const char *text, size_t len, int last, int *col)
{
    int line = 1;
    size_t i = 0;
    while (i < len && line <= last) {
        int c = 1;
        while (i < len && (text[i] == ' ' || text[i] == '\t')) {
            if (text[i] == '\t') {
                *col = c;
                return line;
            }
            i++;
            c++;
        }
        while (i < len && text[i] != '\n')
            i++;
        i++;
        line++;
    }
    return 0;
}

typedef struct plain {
    const char *problem;           /* libyaml's words (a prefix) */
    bool at_context;               /* the words name where the construct began */
    const char *words;             /* with at_context: "%d" line and "%d" column of that */
} plain;

static const plain plains[] = {
    { "mapping values are not allowed", false,
      "a ':' after a plain value: quote a value that holds ': ', or indent this line under "
      "a key of its own" },
    { "did not find expected key", false,
      "this line is not indented like the keys above it" },
    { "did not find expected '-' indicator", false,
      "this line is not indented like the list items above it" },
    { "could not find expected ':'", true,
      "line %d (from column %d) has no ':' (a mapping's lines are KEY: VALUE)" },
    { "found unexpected end of stream", true,
      "the quote at line %d, column %d is never closed" },
    { "did not find expected ',' or '}'", true,
      "the '{' at line %d, column %d is never closed" },
    { "did not find expected ',' or ']'", true,
      "the '[' at line %d, column %d is never closed" },
    { "block sequence entries are not allowed", false,
      "a list item ('- ') on the line of its key: put the items on lines of their own" },
    { "found character that cannot start any token", false,
      "this character cannot begin a plain value (like '@' or '`'): put the value in quotes" },
    { "did not find expected node content", false, "a value is missing here" },
    { "found undefined tag handle", false, "a '!' begins an unknown tag: quote the value" },
};

int yaml_words_error(const yaml_parser_t *p, const char *file, const char *text, size_t len,
                     sim_diag *d)
{
    const char *problem = p->problem ? p->problem : "unreadable YAML";
    int line = (int)p->problem_mark.line + 1, col = (int)p->problem_mark.column + 1;
    int tcol = 0, tline = tab_line(text, len, line, &tcol);
    if (tline > 0 || strstr(problem, "tab"))
        return diag_file(d, file, tline ? tline : line, tline ? tcol : col,
                         "a tab in the indentation: YAML indents with spaces only");
    for (size_t i = 0; i < sizeof plains / sizeof plains[0]; i++) {
        if (strncmp(problem, plains[i].problem, strlen(plains[i].problem)) != 0)
            continue;
        char words[200];
        if (plains[i].at_context)
            snprintf(words, sizeof words, plains[i].words, (int)p->context_mark.line + 1,
                     (int)p->context_mark.column + 1);
        else
            snprintf(words, sizeof words, "%s", plains[i].words);
        return diag_file(d, file, line, col, "YAML: %s (the parser says: %s%s%s)", words,
                         problem, p->context ? " " : "", p->context ? p->context : "");
    }
    if (p->context)
        return diag_file(d, file, line, col, "YAML syntax error: %s %s", problem, p->context);
    return diag_file(d, file, line, col, "YAML syntax error: %s", problem);
}
