//! The documentation against itself and the code: every relative link of
//! `README.md` and `docs/**/*.md` leads to a file (and its `#anchor` to a heading there),
//! `docs/errors.md` holds every error text of `core/src/error.rs`, and
//! `docs/configuration.md`, `redis.conf.example` and the module (`CONFIG GET bf.*` of a
//! server that loaded it: the one test here that starts a server) name the same configs with
//! the same defaults.

use rsbloom_test_support as common;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// `README.md` and every `.md` under `docs/`.
fn markdown_files(root: &Path) -> Vec<PathBuf> {
    let mut files = vec![root.join("README.md")];
    let mut dirs = vec![root.join("docs")];
    while let Some(dir) = dirs.pop() {
        for entry in fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The lines of a Markdown text outside fenced code blocks, with their numbers (from 1).
fn prose_lines(text: &str) -> Vec<(usize, &str)> {
    let mut fenced = false;
    let mut lines = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            lines.push((i + 1, line));
        }
    }
    lines
}

/// A line without its inline code spans (a link inside backticks is not a link).
fn without_code_spans(line: &str) -> String {
    let mut out = String::new();
    let mut rest = line;
    while let Some(start) = rest.find('`') {
        out.push_str(&rest[..start]);
        let ticks = rest[start..].chars().take_while(|&c| c == '`').count();
        let after = &rest[start + ticks..];
        match after.find(&"`".repeat(ticks)) {
            Some(end) => rest = &after[end + ticks..],
            None => {
                out.push_str(&rest[start..]);
                return out;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The destinations of a Markdown text's links and images, with their line numbers: inline
/// `[text](dest "title")` and reference definitions `[label]: dest`.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in prose_lines(text) {
        let line = without_code_spans(line);
        let trimmed = line.trim_start();
        if let Some(definition) = trimmed
            .strip_prefix('[')
            .and_then(|t| t.split_once(']'))
            .and_then(|(_, rest)| rest.strip_prefix(':'))
        {
            if let Some(dest) = definition.split_whitespace().next() {
                found.push((n, dest.to_string()));
            }
            continue;
        }
        let mut rest = line.as_str();
        while let Some(i) = rest.find("](") {
            let after = &rest[i + 2..];
            let end = after.find([')', ' ']).unwrap_or(after.len());
            found.push((n, after[..end].trim_matches(['<', '>']).to_string()));
            rest = &after[end..];
        }
    }
    found
}

/// GitHub's anchor for a heading's text: lower case, punctuation dropped (letters, digits,
/// `-` and `_` kept), each space a `-`.
fn slug(heading: &str) -> String {
    // Link syntax and code ticks render as their text.
    let mut text = String::new();
    let mut rest = heading;
    while let Some(i) = rest.find("](") {
        text.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        rest = after.find(')').map_or("", |end| &after[end + 1..]);
    }
    text.push_str(rest);
    text.trim()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .flat_map(char::to_lowercase)
        .collect()
}

/// The anchors of a Markdown text's headings, numbered `-1`, `-2` ... when repeated.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut all = BTreeSet::new();
    for (_, line) in prose_lines(text) {
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if !(1..=6).contains(&hashes) || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(line[hashes..].trim_end_matches('#'));
        let count = seen.entry(base.clone()).or_insert(0);
        all.insert(match *count {
            0 => base,
            k => format!("{base}-{k}"),
        });
        *count += 1;
    }
    all
}

#[test]
fn slugs_are_githubs() {
    assert_eq!(slug(" Bloom filters (BF.\\*)"), "bloom-filters-bf");
    assert_eq!(
        slug(" Running on Redis 8 / Valkey bundles"),
        "running-on-redis-8--valkey-bundles"
    );
    assert_eq!(slug(" The server's own"), "the-servers-own");
    assert_eq!(
        slug(" `CF.SCANDUMP` and [links](x.md)"),
        "cfscandump-and-links"
    );
    let text = "# A\n```\n# not a heading\n```\n## A\n#no\n";
    assert_eq!(
        anchors(text),
        BTreeSet::from(["a".to_string(), "a-1".to_string()])
    );
    assert_eq!(
        links("[a](x.md#y) `[b](no.md)` ![c](<img.svg>)\n[d]: ref.md\n```\n[e](no.md)\n```"),
        vec![
            (1, "x.md#y".to_string()),
            (1, "img.svg".to_string()),
            (2, "ref.md".to_string())
        ]
    );
}

#[test]
fn every_relative_link_of_the_docs_resolves() {
    let root = common::workspace_root();
    let files = markdown_files(&root);
    assert!(files.len() > 10, "too few pages found: {files:?}");
    let mut checked = 0;
    let mut broken = Vec::new();
    for file in &files {
        let text = read(file);
        let shown = file.strip_prefix(&root).unwrap().display().to_string();
        for (line, dest) in links(&text) {
            if dest.contains("://") || dest.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = match dest.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (dest.as_str(), None),
            };
            let target = match path {
                "" => file.clone(),
                path => file.parent().unwrap().join(path),
            };
            if !target.exists() {
                broken.push(format!("{shown}:{line}: {dest}: no such file"));
                continue;
            }
            let Some(anchor) = anchor else { continue };
            if target.extension().is_none_or(|e| e != "md") {
                broken.push(format!(
                    "{shown}:{line}: {dest}: an anchor into a non-Markdown file"
                ));
            } else if !anchors(&read(&target)).contains(anchor) {
                broken.push(format!(
                    "{shown}:{line}: {dest}: no heading makes #{anchor}"
                ));
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} links found: is the parser blind?"
    );
    assert!(broken.is_empty(), "dead links:\n{}", broken.join("\n"));
}

/// The string literals of `core/src/error.rs`'s `Display` impl, those of one `concat!`
/// joined, each cut at its first `{` (a format argument).
fn error_texts(source: &str) -> Vec<String> {
    let start = source
        .find("impl fmt::Display for Error")
        .expect("error.rs has no Display impl");
    let body = &source[start..];
    let body = &body[..body.find("\nimpl ").unwrap_or(body.len())];
    let mut texts = Vec::new();
    let mut concat: Option<String> = None;
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '"' {
            let mut literal = String::new();
            while let Some((_, c)) = chars.next() {
                match c {
                    '\\' => literal.extend(chars.next().map(|(_, c)| c)),
                    '"' => break,
                    c => literal.push(c),
                }
            }
            match concat.as_mut() {
                Some(joined) => joined.push_str(&literal),
                None => texts.push(literal),
            }
        } else if body[i..].starts_with("concat!(") {
            concat = Some(String::new());
        } else if c == ')' {
            texts.extend(concat.take());
        }
    }
    texts
        .into_iter()
        .map(|t| t.split('{').next().unwrap_or_default().to_string())
        .filter(|t| t.len() > "ERR ".len())
        .collect()
}

#[test]
fn the_error_page_holds_every_error_text() {
    let root = common::workspace_root();
    let texts = error_texts(&read(&root.join("core/src/error.rs")));
    assert!(
        texts.len() > 90,
        "only {} texts read from error.rs",
        texts.len()
    );
    let page = read(&root.join("docs/errors.md"));
    let missing: Vec<&String> = texts
        .iter()
        .filter(|t| !page.contains(t.as_str()))
        .collect();
    assert!(
        missing.is_empty(),
        "error texts of core/src/error.rs that docs/errors.md does not give: {missing:#?}"
    );
}

/// The configs a server with the module declares, with their defaults: `CONFIG GET bf.*`.
fn registered_configs() -> BTreeMap<String, String> {
    let server = common::Server::start();
    let mut c = server.conn();
    let pairs: Vec<String> = redis::cmd("CONFIG")
        .arg("GET")
        .arg("bf.*")
        .query(&mut c)
        .expect("CONFIG GET bf.*");
    pairs
        .chunks(2)
        .map(|p| (p[0].clone(), p[1].clone()))
        .collect()
}

#[test]
fn the_config_page_the_example_and_the_module_name_the_same_configs() {
    let root = common::workspace_root();
    // docs/configuration.md: `| `bf.name` | RedisBloom 8 name | family | default | range | meaning |`.
    let page: BTreeMap<String, String> = read(&root.join("docs/configuration.md"))
        .lines()
        .filter_map(|line| line.strip_prefix("| `bf."))
        .map(|row| {
            let cells: Vec<&str> = row.split(" | ").collect();
            let name = format!("bf.{}", cells[0].trim_end_matches('`'));
            let default = cells[3].split_whitespace().next().unwrap_or_default();
            (name, default.trim_matches('`').to_string())
        })
        .collect();
    // redis.conf.example: `bf.name value` lines.
    let example: BTreeMap<String, String> = read(&root.join("redis.conf.example"))
        .lines()
        .filter(|line| line.starts_with("bf."))
        .map(|line| {
            let (name, value) = line.split_once(' ').unwrap();
            (name.to_string(), value.trim().to_string())
        })
        .collect();
    let module = registered_configs();
    assert!(
        module.len() >= 17,
        "only {} configs declared by the module",
        module.len()
    );
    assert_eq!(
        page, module,
        "docs/configuration.md against the module's configs and defaults (CONFIG GET bf.*)"
    );
    assert_eq!(
        example, module,
        "redis.conf.example against the module's configs and defaults (CONFIG GET bf.*)"
    );
    assert_eq!(
        page, example,
        "defaults: docs/configuration.md against redis.conf.example"
    );
}
