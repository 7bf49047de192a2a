use ruff_python_ast::visitor::{Visitor, walk_expr};
use ruff_python_ast::{Expr, PythonVersion};
use ruff_python_parser::{Mode, ParseOptions};
use ruff_text_size::{Ranged, TextRange};

use crate::diagnostic::Severity;
use crate::findings::Findings;
use crate::rules::{Check, Family, Rule, RuleContext};
use crate::syntax::Span;

pub(crate) static RULE: Rule = rule!(
    "P403",
    "unsafe-verification",
    Family::Policy,
    Severity::Error,
    "A verification expression ContextCore would refuse to load, or one reaching a dunder",
)
.points_at("the `verification` value, narrowed to the offending construct when the value is written on one line without escapes")
.check(Check::Contract(check));

/// ContextCore's limits (`_validate_expression` in its propagation schema).
const MAX_CHARACTERS: usize = 500;
const BUILTINS: &[&str] = &["len", "str", "int", "float", "bool", "isinstance"];
const VARIABLES: &[&str] = &["context", "source", "dest"];
const METHODS: &[&str] = &[
    "get",
    "keys",
    "values",
    "items",
    "startswith",
    "endswith",
    "lower",
    "upper",
    "strip",
];
/// Python's own tokenizer refuses more nested brackets than this (its
/// `MAXLEVEL`); refusing them first also bounds the parser's recursion.
const MAX_NESTING: usize = 200;

/// Why an expression is refused, and where in it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Refusal {
    /// Byte range inside the expression; `None` for the whole text.
    pub(crate) range: Option<std::ops::Range<usize>>,
    pub(crate) message: String,
    /// Whether Python itself refuses it (not one expression, too long),
    /// rather than the allow-list.
    pub(crate) unreadable: bool,
}

/// The first construct (in source order) that ContextCore refuses at load
/// time, or that reaches a dunder; `None` when the expression is accepted.
pub(crate) fn refusal(expression: &str) -> Option<Refusal> {
    let characters = expression.chars().count();
    if characters > MAX_CHARACTERS {
        return Some(Refusal {
            range: None,
            message: format!(
                "is {characters} characters long; ContextCore refuses more than {MAX_CHARACTERS}"
            ),
            unreadable: true,
        });
    }
    if let Some(at) = expression.find('\0') {
        return Some(located(
            expression,
            at..at + 1,
            "contains a NUL character, which Python source cannot".into(),
            true,
        ));
    }
    if let Some(at) = too_deep(expression) {
        return Some(located(
            expression,
            at..at + 1,
            format!("nests brackets more than {MAX_NESTING} deep, which Python refuses"),
            true,
        ));
    }
    let options = ParseOptions::from(Mode::Expression).with_target_version(PythonVersion::PY312);
    let parsed = match ruff_python_parser::parse(expression, options) {
        Ok(parsed) => parsed,
        Err(error) => {
            return Some(located(
                expression,
                clamp(expression, error.location),
                format!("is not a Python expression: {}", error.error),
                true,
            ));
        }
    };
    if let Some(unsupported) = parsed.unsupported_syntax_errors().first() {
        return Some(located(
            expression,
            clamp(expression, unsupported.range),
            format!("is not a Python 3.12 expression: {}", unsupported),
            true,
        ));
    }
    let ruff_python_ast::Mod::Expression(module) = parsed.syntax() else {
        return None;
    };
    let mut finder = Offenders::default();
    finder.visit_expr(&module.body);
    finder
        .found
        .into_iter()
        // The outermost of constructs starting together: the call, not its callee.
        .min_by_key(|(range, _)| (range.start(), std::cmp::Reverse(range.end())))
        .map(|(range, what)| located(expression, clamp(expression, range), what, false))
}

/// Where brackets first nest deeper than Python allows (strings aside).
fn too_deep(expression: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (at, c) in expression.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Some(at);
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

fn clamp(expression: &str, range: TextRange) -> std::ops::Range<usize> {
    let start = range.start().to_usize().min(expression.len());
    let end = range.end().to_usize().clamp(start, expression.len());
    start..end
}

/// A refusal at `range`, its message ending with where that is.
fn located(
    expression: &str,
    range: std::ops::Range<usize>,
    what: String,
    unreadable: bool,
) -> Refusal {
    let before = &expression[..range.start];
    let line = before.matches('\n').count() + 1;
    let column = before[before.rfind('\n').map_or(0, |n| n + 1)..]
        .chars()
        .count()
        + 1;
    let at = if expression.contains('\n') {
        format!("line {line}, column {column}")
    } else {
        format!("column {column}")
    };
    Refusal {
        range: Some(range),
        message: format!("{what} ({at} of the expression)"),
        unreadable,
    }
}

/// Every refused construct, with its range.
#[derive(Default)]
struct Offenders {
    found: Vec<(TextRange, String)>,
}

fn is_variable(expr: &Expr) -> bool {
    matches!(expr, Expr::Name(name) if VARIABLES.contains(&name.id.as_str()))
}

fn is_dunder(name: &str) -> bool {
    name.len() > 4 && name.starts_with("__") && name.ends_with("__")
}

impl<'a> Visitor<'a> for Offenders {
    fn visit_expr(&mut self, expr: &'a Expr) {
        match expr {
            Expr::Call(call) => {
                let allowed = match call.func.as_ref() {
                    Expr::Name(name) => BUILTINS.contains(&name.id.as_str()),
                    Expr::Attribute(attribute) => {
                        is_variable(&attribute.value) && METHODS.contains(&attribute.attr.as_str())
                    }
                    _ => false,
                };
                if !allowed {
                    let callee = match call.func.as_ref() {
                        Expr::Name(name) => format!("calls `{}`", name.id),
                        Expr::Attribute(attribute) => {
                            format!("calls the method `{}`", attribute.attr)
                        }
                        _ => "calls a computed value".to_string(),
                    };
                    self.found.push((
                        call.range(),
                        format!("{callee}, which ContextCore refuses to load"),
                    ));
                }
            }
            Expr::Attribute(attribute) => {
                if is_dunder(&attribute.attr) {
                    self.found.push((
                        attribute.attr.range(),
                        format!(
                            "reads the dunder attribute `{}`, the usual way out of a sandbox",
                            attribute.attr
                        ),
                    ));
                } else if !is_variable(&attribute.value) {
                    self.found.push((
                        attribute.attr.range(),
                        format!(
                            "reads the attribute `.{}` of something other than `context`, `source` or `dest`, which ContextCore refuses to load",
                            attribute.attr
                        ),
                    ));
                }
            }
            Expr::Subscript(subscript) => {
                if let Expr::StringLiteral(key) = subscript.slice.as_ref()
                    && is_dunder(key.value.to_str())
                {
                    self.found.push((
                        key.range(),
                        format!(
                            "reads the dunder key `{}`, the usual way out of a sandbox",
                            key.value.to_str()
                        ),
                    ));
                }
            }
            Expr::FString(fstring) => {
                self.found.push((
                    fstring.range(),
                    "uses an f-string, which ContextCore refuses to load: it could copy a field's value into a message".to_string(),
                ));
            }
            Expr::TString(tstring) => {
                self.found.push((
                    tstring.range(),
                    "uses a template string (t-string)".to_string(),
                ));
            }
            _ => {}
        }
        walk_expr(self, expr);
    }
}

fn check(ctx: &RuleContext<'_>, out: &mut Findings) {
    for chain in &ctx.contract.chains {
        let Some(verification) = &chain.verification else {
            continue;
        };
        let Some(refusal) = refusal(&verification.value) else {
            continue;
        };
        let span = narrowed(
            ctx.source,
            verification.span,
            &verification.value,
            refusal.range.as_ref(),
        );
        let chain_id = chain
            .chain_id
            .as_ref()
            .map_or("(unnamed)", |c| c.value.as_str());
        out.push(
            RULE.diagnostic(
                span,
                format!("the verification of chain `{chain_id}` {}", refusal.message),
            )
            .with_help(if refusal.unreadable {
                "write one Python expression of at most 500 characters; to spread it over lines, wrap it in parentheses"
            } else {
                "keep to comparisons, boolean and arithmetic operators, literals, subscripts, the builtins len/str/int/float/bool/isinstance, and get/keys/values/items/startswith/endswith/lower/upper/strip called on `context`, `source` or `dest`"
            }),
        );
    }
}

/// The span of `range` inside the scalar at `span` when the scalar is
/// written as its value reads (plain on one line, or quoted without
/// escapes), so offsets map one to one; otherwise the whole scalar.
fn narrowed(source: &str, span: Span, value: &str, range: Option<&std::ops::Range<usize>>) -> Span {
    let Some(range) = range else {
        return span;
    };
    let Some(written) = source.get(span.start..span.end) else {
        return span;
    };
    let offset = if written == value {
        0
    } else if written.len() == value.len() + 2
        && (written.starts_with('\'') || written.starts_with('"'))
        && &written[1..written.len() - 1] == value
    {
        1
    } else {
        return span;
    };
    // An empty range (where the parser stopped) still points at a
    // character: the next one, or the last at the end of the text.
    let (mut start, mut end) = (range.start, range.end);
    if start == end {
        match value.get(start..).and_then(|rest| rest.chars().next()) {
            Some(c) => end = start + c.len_utf8(),
            None => {
                start = value
                    .get(..start)
                    .and_then(|before| before.char_indices().last())
                    .map_or(start, |(at, _)| at)
            }
        }
    }
    Span::new(span.start + offset + start, span.start + offset + end)
}

#[cfg(test)]
mod tests {
    use super::refusal;

    /// Accepted by ContextCore at load time, and safe.
    pub(crate) const ACCEPTED: &[&str] = &[
        "source == dest",
        "len(dest) > 0",
        "context.get('field', '') != ''",
        "0 < len(dest) <= 10 < 20",
        "'a' not in dest",
        "dest is not None",
        "dest is None or source is None",
        "not (source and dest)",
        "len(dest) * 2 + 1 - 3 / 4 // 5 % 6 ** 2 == 7",
        "-len(dest) < ~1 and +1",
        "1 << 2 | 3 & 4 ^ 5 >> 1",
        "(lambda x, *args, y=1, **kw: x + 1) is not None",
        "[x for x in dest if x] == [y for y in source]",
        "{k: v for k, v in context.items()} != {}",
        "{x for x in dest} != {1}",
        "(x > 0 for x in dest) is not None",
        "dest if source else None",
        "dest[0] == source[-1]",
        "dest[1:3] == source[::2]",
        "dest['key']['nested'] == 1",
        "1.5e3 + 0x1F + 0o17 + 0b101 + 1_000 + 3j != 0",
        "b'bytes' != rb'raw' and r'\\d+' != 'x'",
        "u'unicode' == 'unicode'",
        "'\\n\\t\\x41\\u00e9\\N{BULLET}' != ''",
        "'implicit' 'concatenation' == 'implicitconcatenation'",
        "\"double\" == 'single'",
        "'''triple''' == \"\"\"quoted\"\"\"",
        "(1, 2) == (1, 2) and [1, 2] != [] and {1: 2} and {1}",
        "(\n    len(dest) > 0\n    and source == dest\n)",
        "True and not False and None is None",
        "... is Ellipsis",
        "isinstance(dest, str) and bool(int(float(str(1))))",
        "dest.lower() == source.strip()",
        "context.keys() and source.values() and dest.items()",
        "source.startswith('a') or dest.endswith('z') or source.upper()",
        "context['__class__x'] == 1",
        "dest.__len__x == 1",
        "[x == 1 for x in context.get('a', []) if x] != []",
        "(x := 1) == 1",
        "(*dest,) == (1,)",
        "{**context} == {}",
        "[*dest, *source] != []",
        "context.get('a') if context.get('b') else context.get('c')",
        "len(dest) > 0  # a trailing comment",
        "Rb'x' != BR'y' and U'z' == 'z' if dest else None",
        "0.5 + .5 + 5. + 1e-3 + 1E+3 + 0J != 0",
        "'\\'' == \"'\" and \"\\\"\" != ''",
        "not dest in source and source not in dest and dest is not source",
    ];

    /// Refused, and the construct the message must name.
    pub(crate) const REFUSED: &[(&str, &str)] = &[
        ("__import__('os').system('ls')", "calls the method `system`"),
        ("__import__('os')", "calls `__import__`"),
        ("open('/etc/passwd').read()", "calls the method `read`"),
        ("print(dest)", "calls `print`"),
        ("source.strip().lower() == dest", "calls the method `lower`"),
        ("context.pop('a')", "calls the method `pop`"),
        ("context.get('a').lower()", "calls the method `lower`"),
        ("other.attribute == 1", "the attribute `.attribute`"),
        ("context.get.__self__", "the dunder attribute `__self__`"),
        ("context.__class__", "the dunder attribute `__class__`"),
        ("source.__dict__ == {}", "the dunder attribute `__dict__`"),
        ("context['__globals__']", "the dunder key `__globals__`"),
        ("f'{dest}' == 'x'", "an f-string"),
        ("f'plain' == 'plain'", "an f-string"),
        ("Rf'{dest}' == ''", "an f-string"),
        ("'a' f'{source}' == 'ab'", "an f-string"),
        ("t'{dest}'", "t-string"),
        ("(lambda: 1)()", "calls a computed value"),
        ("[x.y for x in dest]", "the attribute `.y`"),
        ("import os", "is not a Python expression"),
        ("dest ==", "is not a Python expression"),
        ("x = 1", "is not a Python expression"),
        ("len(dest) > 0\nand source", "is not a Python expression"),
        ("(dest", "is not a Python expression"),
        ("", "is not a Python expression"),
        ("dest\0", "a NUL character"),
        ("sorted(dest)", "calls `sorted`"),
        ("getattr(dest, 'x')", "calls `getattr`"),
        ("eval('1')", "calls `eval`"),
        ("isinstance(dest, str).real", "the attribute `.real`"),
    ];

    #[test]
    fn what_contextcore_loads_is_accepted() {
        for expression in ACCEPTED {
            assert_eq!(refusal(expression), None, "{expression}");
        }
    }

    #[test]
    fn what_contextcore_refuses_is_refused_naming_the_construct() {
        for (expression, named) in REFUSED {
            let refusal = refusal(expression).unwrap_or_else(|| panic!("accepted: {expression:?}"));
            assert!(
                refusal.message.contains(named),
                "{expression:?}: {}",
                refusal.message
            );
        }
    }

    #[test]
    fn the_first_offender_in_the_text_is_named_with_its_column() {
        let refusal =
            refusal("len(dest) > 0 and dest.x.y == print(1)").unwrap_or_else(|| panic!("accepted"));
        assert!(refusal.message.contains("`.y`"), "{}", refusal.message);
        assert!(
            refusal.message.ends_with("(column 26 of the expression)"),
            "{}",
            refusal.message
        );
        let multi = refusal_of("(\n  dest ==\n  print(1)\n)");
        assert!(
            multi.ends_with("(line 3, column 3 of the expression)"),
            "{multi}"
        );
    }

    fn refusal_of(expression: &str) -> String {
        refusal(expression).map(|r| r.message).unwrap_or_default()
    }

    #[test]
    fn length_and_nesting_are_bounded_before_parsing() {
        let long = format!("len(dest) == {}", "1".repeat(490));
        assert!(
            refusal_of(&long).contains("503 characters long"),
            "{}",
            refusal_of(&long)
        );
        let deep = format!("{}1{}", "(".repeat(210), ")".repeat(210));
        assert!(refusal_of(&deep).contains("more than 200 deep"));
        let in_a_string = format!("'{}' == dest", "(".repeat(300));
        assert_eq!(refusal(&in_a_string), None);
    }

    /// P403's rule written in Python over CPython's own `ast`: the
    /// verdicts above must be Python's, not only ours.
    const PYTHON_VERDICT: &str = r#"
import ast, json, sys
B = {"len", "str", "int", "float", "bool", "isinstance"}
V = {"context", "source", "dest"}
M = {"get", "keys", "values", "items", "startswith", "endswith", "lower", "upper", "strip"}
def dunder(name):
    return len(name) > 4 and name.startswith("__") and name.endswith("__")
def refused(text):
    if len(text) > 500:
        return True
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return True
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            return True
        if isinstance(node, ast.Call):
            f = node.func
            named = isinstance(f, ast.Name) and f.id in B
            method = (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name)
                      and f.value.id in V and f.attr in M)
            if not (named or method):
                return True
        if isinstance(node, ast.Attribute):
            if dunder(node.attr) or not (isinstance(node.value, ast.Name) and node.value.id in V):
                return True
        if (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                and isinstance(node.slice.value, str) and dunder(node.slice.value)):
            return True
    return False
print(json.dumps([refused(t) for t in json.load(sys.stdin)]))
"#;

    #[test]
    fn python_itself_agrees_with_every_verdict() {
        use std::io::Write;
        use std::process::{Command, Stdio};
        let spawned = Command::new("python3")
            .args(["-c", PYTHON_VERDICT])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn();
        let Ok(mut child) = spawned else {
            assert!(std::env::var_os("CI").is_none(), "python3 is needed in CI");
            println!("skipped: python3 is not installed");
            return;
        };
        let expressions: Vec<&str> = ACCEPTED
            .iter()
            .copied()
            .chain(REFUSED.iter().map(|(e, _)| *e))
            .collect();
        let input = serde_json::to_string(&expressions).unwrap_or_default();
        if let Some(mut stdin) = child.stdin.take() {
            let _ = stdin.write_all(input.as_bytes());
        }
        let output = child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("python3: {e}"));
        let python: Vec<bool> = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!(
                "python3 said {e}: {}",
                String::from_utf8_lossy(&output.stdout)
            )
        });
        assert_eq!(python.len(), expressions.len());
        for (expression, python_refuses) in expressions.iter().zip(python) {
            // t-strings: Python 3.14 syntax, which ContextCore's 3.12 refuses;
            // an older or newer python3 here says nothing about 3.12.
            if expression.starts_with("t'") {
                continue;
            }
            assert_eq!(
                refusal(expression).is_some(),
                python_refuses,
                "{expression:?}"
            );
        }
    }
}
