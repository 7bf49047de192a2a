//! A scalar's text and its YAML 1.2 core-schema resolution (`null`,
//! `true`, `12`, `1.5`; quoted and block scalars are always strings).

/// A scalar's text as the parser read it (quotes, escapes and folding
/// resolved), and whether it was plain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scalar<'a> {
    pub text: &'a str,
    /// Plain scalars are subject to YAML 1.2 core-schema resolution
    /// (`null`, `true`, `12`); quoted and block scalars are always strings.
    pub plain: bool,
}

/// A scalar after core-schema resolution.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved<'a> {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'a str),
}

impl<'a> Scalar<'a> {
    pub fn resolve(&self) -> Resolved<'a> {
        if !self.plain {
            return Resolved::Str(self.text);
        }
        let t = self.text;
        // Every null, boolean and number of the core schema starts with
        // one of these; most plain scalars of a contract (names, enum
        // values) do not, and are text without being matched against each.
        if let Some(first) = t.bytes().next()
            && !matches!(
                first,
                b'0'..=b'9' | b'+' | b'-' | b'.' | b'~' | b'n' | b'N' | b't' | b'T' | b'f' | b'F'
            )
        {
            return Resolved::Str(t);
        }
        resolve_plain(t)
    }
}

/// Whether a plain scalar's text is one of the core schema's nulls.
pub(super) fn is_core_null(t: &str) -> bool {
    matches!(t, "" | "~" | "null" | "Null" | "NULL")
}

/// A plain scalar's core-schema resolution, every form tried.
pub(super) fn resolve_plain(t: &str) -> Resolved<'_> {
    if is_core_null(t) {
        return Resolved::Null;
    }
    match t {
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Resolved::Float(f64::INFINITY);
        }
        "-.inf" | "-.Inf" | "-.INF" => return Resolved::Float(f64::NEG_INFINITY),
        ".nan" | ".NaN" | ".NAN" => return Resolved::Float(f64::NAN),
        _ => {}
    }
    if let Some(int) = parse_core_int(t) {
        return Resolved::Int(int);
    }
    if looks_like_core_float(t)
        && let Ok(f) = t.parse::<f64>()
    {
        return Resolved::Float(f);
    }
    Resolved::Str(t)
}

fn parse_core_int(t: &str) -> Option<i64> {
    if let Some(hex) = t.strip_prefix("0x") {
        return i64::from_str_radix(hex, 16).ok();
    }
    if let Some(oct) = t.strip_prefix("0o") {
        return i64::from_str_radix(oct, 8).ok();
    }
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    t.parse::<i64>().ok()
}

/// YAML 1.2 core float: `[-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?`
fn looks_like_core_float(t: &str) -> bool {
    let s = t.strip_prefix(['-', '+']).unwrap_or(t);
    let (mantissa, exponent) = match s.find(['e', 'E']) {
        Some(i) => (&s[..i], Some(&s[i + 1..])),
        None => (s, None),
    };
    let (int_part, frac_part) = match mantissa.split_once('.') {
        Some((a, b)) => (a, Some(b)),
        None => (mantissa, None),
    };
    let all_digits = |p: &str| p.bytes().all(|b| b.is_ascii_digit());
    let mantissa_ok = match frac_part {
        Some(frac) => {
            all_digits(int_part) && all_digits(frac) && !(int_part.is_empty() && frac.is_empty())
        }
        None => !int_part.is_empty() && all_digits(int_part),
    };
    let exponent_ok = match exponent {
        Some(e) => {
            let e = e.strip_prefix(['-', '+']).unwrap_or(e);
            !e.is_empty() && all_digits(e)
        }
        None => true,
    };
    mantissa_ok && exponent_ok && (frac_part.is_some() || exponent.is_some())
}
