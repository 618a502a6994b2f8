//! The one judge of an entry's name: an archive's name is bytes a stranger
//! chose, and only a name that this module accepts becomes a path under the
//! fresh folder. It is pure (bytes in, components or the broken rule out), so
//! that it can be tested on every name a property test makes up.

use std::fmt;
use std::path::PathBuf;

/// The rule an entry's name breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRule {
    /// It starts with `/`.
    Absolute,
    /// A component is `..`.
    ParentDir,
    /// It is not valid UTF-8.
    NotUtf8,
    /// It is empty.
    Empty,
    /// It has an empty component (`a//b`).
    EmptyComponent,
    /// A component is `.` (other than a leading `./`).
    Dot,
    /// It has a control character: a newline, a tab, an escape, DEL, a C1 control.
    Control,
    /// It has a backslash, a separator elsewhere.
    Backslash,
    /// A component is longer than the caps allow.
    TooLong {
        /// The most bytes a component may have.
        limit: usize,
    },
    /// It ends in `/`, the mark of a folder, but it is a file.
    SlashOnFile,
}

impl fmt::Display for NameRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Absolute => f.write_str("starts with `/`"),
            Self::ParentDir => f.write_str("has a `..` component"),
            Self::NotUtf8 => f.write_str("is not valid UTF-8"),
            Self::Empty => f.write_str("is empty"),
            Self::EmptyComponent => f.write_str("has an empty component (`//`)"),
            Self::Dot => f.write_str("has a `.` component"),
            Self::Control => f.write_str("has a control character (a newline, tab or escape)"),
            Self::Backslash => f.write_str("has a backslash"),
            Self::TooLong { limit } => write!(f, "has a component longer than {limit} bytes"),
            Self::SlashOnFile => f.write_str("ends in `/` but is a file"),
        }
    }
}

/// A name that passed: its components, in order, none of them empty, `.` or
/// `..`; none when the name is the archive's root (`./`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Name {
    pub(crate) components: Vec<String>,
    /// Whether it ended in `/`, a folder's mark.
    pub(crate) slash: bool,
}

impl Name {
    /// The path under the fresh folder.
    pub(crate) fn path(&self) -> PathBuf {
        self.components.iter().collect()
    }
}

/// `bytes` judged as an entry's name, each component at most `name_bytes`
/// long. A leading `./` is dropped (`tar -C dir .` writes it), and so is a
/// trailing `/`; `./` alone is the root.
pub(crate) fn check(bytes: &[u8], name_bytes: usize) -> Result<Name, NameRule> {
    if bytes.is_empty() {
        return Err(NameRule::Empty);
    }
    if bytes.starts_with(b"/") {
        return Err(NameRule::Absolute);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| NameRule::NotUtf8)?;
    let text = text.strip_prefix("./").unwrap_or(text);
    let (text, slash) = match text.strip_suffix('/') {
        Some(text) => (text, true),
        None => (text, false),
    };
    if text.is_empty() || text == "." {
        return Ok(Name {
            components: Vec::new(),
            slash,
        });
    }
    let components = text
        .split('/')
        .map(|component| check_component(component, name_bytes).map(str::to_owned))
        .collect::<Result<_, _>>()?;
    Ok(Name { components, slash })
}

fn check_component(component: &str, name_bytes: usize) -> Result<&str, NameRule> {
    match component {
        "" => Err(NameRule::EmptyComponent),
        "." => Err(NameRule::Dot),
        ".." => Err(NameRule::ParentDir),
        _ if component.chars().any(char::is_control) => Err(NameRule::Control),
        _ if component.contains('\\') => Err(NameRule::Backslash),
        _ if component.len() > name_bytes => Err(NameRule::TooLong { limit: name_bytes }),
        _ => Ok(component),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::{Component, Path};

    fn components(name: &str) -> Vec<String> {
        check(name.as_bytes(), 255).unwrap().components
    }

    #[test]
    fn plain_names_pass_with_a_leading_dot_slash_and_a_folders_slash_dropped() {
        assert_eq!(components("src/main.py"), ["src", "main.py"]);
        assert_eq!(components("./src/main.py"), ["src", "main.py"]);
        assert_eq!(components("src/"), ["src"]);
        assert!(check(b"src/", 255).unwrap().slash);
        assert_eq!(components("é ü/bot v2.py"), ["é ü", "bot v2.py"]);
        assert!(components("./").is_empty());
        assert!(components(".").is_empty());
    }

    #[test]
    fn each_rule_is_named() {
        let cases: [(&[u8], NameRule); 13] = [
            (b"", NameRule::Empty),
            (b"/etc/passwd", NameRule::Absolute),
            (b"../x", NameRule::ParentDir),
            (b"a/../../x", NameRule::ParentDir),
            (b"./../x", NameRule::ParentDir),
            (b"a/\xff", NameRule::NotUtf8),
            (b"a//b", NameRule::EmptyComponent),
            (b".//b", NameRule::EmptyComponent),
            (b"a/./b", NameRule::Dot),
            (b"././b", NameRule::Dot),
            (b"a\nb", NameRule::Control),
            (b"a\\..\\b", NameRule::Backslash),
            (b"a\x7f", NameRule::Control),
        ];
        for (name, rule) in cases {
            assert_eq!(check(name, 255), Err(rule), "{}", name.escape_ascii());
        }
        assert_eq!(check("a\u{9b}b".as_bytes(), 255), Err(NameRule::Control));
        assert_eq!(check(b"a\x1b[2J", 255), Err(NameRule::Control));
        assert_eq!(check(b"abcd/x", 3), Err(NameRule::TooLong { limit: 3 }));
        assert!(check(b"abc/x", 3).is_ok());
    }

    fn name_strategy() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop_oneof![
            Just(b"..".to_vec()),
            Just(b".".to_vec()),
            Just(b"".to_vec()),
            Just(b"/".to_vec()),
            Just(b"\\".to_vec()),
            Just(b"a".to_vec()),
            Just("é".as_bytes().to_vec()),
            Just(b"\n".to_vec()),
            Just(b"\xff".to_vec()),
            prop::collection::vec(any::<u8>(), 0..4),
        ];
        prop::collection::vec(piece, 0..8).prop_map(|pieces| pieces.concat())
    }

    proptest! {
        /// Whatever the validator accepts stays inside the folder: relative,
        /// no `..`, no `.`, no root, no control characters.
        #[test]
        fn an_accepted_name_stays_inside(bytes in name_strategy()) {
            if let Ok(name) = check(&bytes, 255) {
                let root = Path::new("/into");
                let path = root.join(name.path());
                prop_assert!(path.starts_with(root));
                prop_assert!(name.path().is_relative());
                for component in name.path().components() {
                    prop_assert!(matches!(component, Component::Normal(_)), "{component:?}");
                }
                for component in &name.components {
                    prop_assert!(component != ".." && component != "." && !component.is_empty());
                    prop_assert!(!component.contains(['/', '\\']));
                    prop_assert!(!component.chars().any(char::is_control));
                }
            }
        }
    }
}
