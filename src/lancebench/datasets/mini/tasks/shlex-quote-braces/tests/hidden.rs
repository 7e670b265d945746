//! Hidden tests: `quote` must give words that a POSIX shell (bash) reads back unchanged.
use std::process::Command;

/// What bash prints for `printf '%s\n' WORD` with the quoted word: one line per resulting word.
fn through_bash(word: &str) -> Vec<String> {
    let script = format!("printf '%s\\n' {}", shlex::quote(word));
    let out = Command::new("bash").arg("-c").arg(&script).output().expect("bash runs");
    assert!(out.status.success(), "bash failed on {:?}", script);
    String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect()
}

fn assert_round_trip(word: &str) {
    assert_eq!(through_bash(word), vec![word.to_owned()], "quote({:?}) = {:?}", word, shlex::quote(word));
    assert_eq!(shlex::split(&shlex::quote(word)), Some(vec![word.to_owned()]));
}

#[test]
fn quote_protects_brace_expansion() {
    assert_round_trip("{a,b}");
    assert_round_trip("file.{txt,md}");
    assert_round_trip("x{1..3}");
}

#[test]
fn join_protects_brace_expansion() {
    let words = ["cp", "{src,dst}", "out"];
    let script = format!("printf '%s\\n' {}", shlex::join(words.iter().copied()));
    let out = Command::new("bash").arg("-c").arg(&script).output().expect("bash runs");
    let lines: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect();
    assert_eq!(lines, vec!["cp", "{src,dst}", "out"]);
}

#[test]
fn quote_keeps_shell_metacharacters_literal() {
    for word in ["a b", "$HOME", "`id`", "a\"b", "a'b", "back\\slash", "*.rs", "semi;colon", "~user", "50%"] {
        assert_round_trip(word);
    }
}

#[test]
fn quote_leaves_plain_words_alone() {
    for word in ["foobar", "foo-bar_1.2/x", "UPPER", "a,b"] {
        assert_eq!(shlex::quote(word), word);
    }
}

#[test]
fn split_reads_posix_words() {
    assert_eq!(shlex::split("foo \"bar baz\" 'q x'"), Some(vec!["foo".to_owned(), "bar baz".to_owned(), "q x".to_owned()]));
    assert_eq!(shlex::split("foo #comment"), Some(vec!["foo".to_owned()]));
    assert_eq!(shlex::split("\"unterminated"), None);
}
