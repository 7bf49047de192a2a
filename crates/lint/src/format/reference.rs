//! `docs/contract-format.md` and hover's text on a key, written from the
//! tables.

use std::fmt::Write;

use super::{EnumKind, HARNESS_MAPPINGS, MAPPINGS, Mapping, mapping_at};

/// `docs/contract-format.md`: the format reference, generated from the tables.
pub fn reference() -> String {
    let mut out = String::from(
        "# The contract format\n\n\
         Generated from `crates/lint/src/format/tables.rs`, the tables the linter, \
         completion and hover read; `tests/rules.rs` fails when this file is \
         stale. Keys marked *extension* are phaselint's own: ContextCore \
         rejects them, so `dialect = \"contextcore\"` reports them (E003). \
         Every other key follows ContextCore's `ContextContract`; an unknown \
         key is an error at every level (E003).\n",
    );
    for mapping in MAPPINGS {
        write_mapping(&mut out, mapping);
    }
    out.push_str("\n## Enumerations\n\nValues are lower case; phaselint reads any case and reports the others (S002).\n");
    for kind in EnumKind::ALL {
        let (what, values) = kind.values();
        let _ = write!(out, "\n### {what}\n\n| value | meaning |\n|---|---|\n");
        for (value, meaning) in values {
            let _ = writeln!(out, "| `{value}` | {meaning} |");
        }
    }
    out.push_str(
        "\n# Harness configs\n\n\
         `.harness/config.json` (or any JSON or YAML file linted with \
         `--kind harness`). These mappings are open: keys they do not list \
         belong to the harness and are not reported.\n",
    );
    for mapping in HARNESS_MAPPINGS {
        write_mapping(&mut out, mapping);
    }
    out
}

/// One mapping's section of the reference: its description and key table.
fn write_mapping(out: &mut String, mapping: &Mapping) {
    let _ = write!(
        out,
        "\n## {}\n\n{}\n\n| key | type | required | default | description |\n|---|---|---|---|---|\n",
        mapping.name, mapping.description
    );
    for key in mapping.keys {
        let mut description = key.description.to_string();
        if let Some((count, why)) = key.min_items {
            let _ = write!(description, " At least {count} ({why}).");
        }
        if key.extension {
            description.push_str(" *Extension.*");
        }
        let _ = writeln!(
            out,
            "| `{}` | {} | {} | {} | {} |",
            key.name,
            key.value.describe().replace('|', "\\|"),
            if key.required { "yes" } else { "" },
            key.default.map_or(String::new(), |d| format!("`{d}`")),
            description
        );
    }
}

/// Hover text for the key `key` of the mapping at `path`.
pub fn key_documentation(path: &[&str], key: &str) -> Option<String> {
    let mapping = mapping_at(path)?;
    let spec = mapping.key(key)?;
    let mut text = format!(
        "**`{}`** ({}): {}\n\n{}",
        spec.name,
        mapping.name,
        spec.value.describe(),
        spec.description
    );
    if spec.required {
        text.push_str("\n\nRequired.");
    }
    if let Some(default) = spec.default {
        let _ = write!(text, "\n\nDefault: `{default}`.");
    }
    if let Some((count, why)) = spec.min_items {
        let _ = write!(text, "\n\nAt least {count} ({why}).");
    }
    if spec.extension {
        text.push_str("\n\nA phaselint extension: ContextCore rejects it.");
    }
    Some(text)
}
