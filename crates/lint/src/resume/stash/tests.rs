use super::*;

#[test]
fn the_marker_is_a_whole_token() {
    let message = "On main: checkpoint:chk_1:Before refactoring";
    assert!(carries_checkpoint(message, "chk_1"));
    assert!(!carries_checkpoint(message, "chk"));
    assert!(!carries_checkpoint("On main: checkpoint:chk_10", "chk_1"));
    assert!(carries_checkpoint("On main: checkpoint:chk_1", "chk_1"));
    assert!(carries_checkpoint(
        "On main: checkpoint:chk_10 checkpoint:chk_1",
        "chk_1"
    ));
    assert!(!carries_checkpoint("On main: wip", "chk_1"));
}

#[test]
fn tree_paths() {
    assert_eq!(tree_path("", "./src//a.py"), Some("src/a.py".into()));
    assert_eq!(tree_path("sub/", "a.py"), Some("sub/a.py".into()));
    assert_eq!(tree_path("", "a/../b"), None);
    assert_eq!(tree_path("", "a\nb"), None);
    assert_eq!(tree_path("", "."), None);
    assert_eq!(tree_path("", "/etc/passwd"), None);
}
