//! The list of known differences (`docs/differences.txt`) and the classifier that matches a
//! divergence against it.
//!
//! The file is line-based. A rule starts at its `id:` line; its other lines are
//!
//! ```text
//! id: bf-exists-wrongtype            a word, also docs/differences.md's tag `(diff: <id>)`
//! kind: deliberate                   deliberate | redisbloom-8 | redisbloom-2.8-crash
//! commands: BF.EXISTS BF.MEXISTS     command names (any case), `*` for any, STATE for
//!                                    state-check differences
//! readme: <one line>                 docs/differences.md's wording in one line
//! args: BF.EXISTS * *                a case: globs on the arguments, then on RedisBloom's
//! rb: :0                             and on rsbloom's reply as `resp::render` shows them
//! rs: -WRONGTYPE*                    (`*` any run, `%` any run without a space, `?` one
//!                                    character; missing: `*`)
//! ```
//!
//! Every `args:` line starts a new case; a rule matches when the command is one of its
//! commands and any of its cases matches all three texts. A rule without cases documents a
//! difference no reply shows (replication, AOF). `#` starts a comment line. A crash of
//! RedisBloom is matched with `rb:` text `<crash>`, a state difference with arguments
//! `STATE <what> <key> <args of the command that created the key>` (`what`: TYPE, DEBUG,
//! `DUMP <type>` or `SCANDUMP <type>`).

use std::fmt;

/// What a difference is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// rsbloom answers differently on purpose (no crash, strict options, ...).
    Deliberate,
    /// rsbloom follows RedisBloom 8.x where 2.8 answered differently.
    RedisBloom8,
    /// RedisBloom 2.8 crashes; rsbloom answers.
    Crash28,
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Kind::Deliberate => "deliberate",
            Kind::RedisBloom8 => "redisbloom-8",
            Kind::Crash28 => "redisbloom-2.8-crash",
        })
    }
}

#[derive(Clone, Debug)]
pub struct Case {
    /// In upper case, as `origin` (they are matched without case).
    pub args: String,
    pub rb: String,
    pub rs: String,
    /// The command that created the step's key (`?` when unknown), for differences that
    /// follow from how a filter was made rather than from the step itself.
    pub origin: String,
}

#[derive(Clone, Debug)]
pub struct Rule {
    pub id: String,
    pub kind: Kind,
    /// Upper-case command names; `*` matches any.
    pub commands: Vec<String>,
    pub readme: String,
    pub cases: Vec<Case>,
    /// The line of the file the rule starts on.
    pub line: usize,
}

impl Rule {
    pub fn covers(&self, command: &str) -> bool {
        let command = command.to_ascii_uppercase();
        self.commands.iter().any(|c| c == "*" || *c == command)
    }

    /// `args` and `origin` in upper case: argument globs ignore ASCII case (keywords do,
    /// and the parser folds the patterns); reply globs do not.
    fn matches_folded(&self, args: &str, rb: &str, rs: &str, origin: &str) -> bool {
        let command = args.split(' ').next().unwrap_or("");
        self.covers(command)
            && self.cases.iter().any(|c| {
                glob(&c.args, args) && glob(&c.rb, rb) && glob(&c.rs, rs) && glob(&c.origin, origin)
            })
    }
}

/// The rules of a differences file.
#[derive(Clone, Debug, Default)]
pub struct Rules {
    pub rules: Vec<Rule>,
}

impl Rules {
    /// `docs/differences.txt` of the workspace.
    pub fn load() -> Rules {
        let path = crate::workspace_root().join("docs/differences.txt");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
        Rules::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    pub fn parse(text: &str) -> Result<Rules, String> {
        let mut rules: Vec<Rule> = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = n + 1;
            let trimmed = raw.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let (field, value) = trimmed
                .split_once(':')
                .ok_or_else(|| format!("line {line}: expected `field: value`"))?;
            let value = value.strip_prefix(' ').unwrap_or(value).to_string();
            if field == "id" {
                if value.is_empty() || value.contains(char::is_whitespace) {
                    return Err(format!("line {line}: an id is one word"));
                }
                if rules.iter().any(|r| r.id == value) {
                    return Err(format!("line {line}: id {value} used twice"));
                }
                rules.push(Rule {
                    id: value,
                    kind: Kind::Deliberate,
                    commands: Vec::new(),
                    readme: String::new(),
                    cases: Vec::new(),
                    line,
                });
                continue;
            }
            let rule = rules
                .last_mut()
                .ok_or_else(|| format!("line {line}: `{field}:` before the first id"))?;
            match field {
                "kind" => {
                    rule.kind = match value.as_str() {
                        "deliberate" => Kind::Deliberate,
                        "redisbloom-8" => Kind::RedisBloom8,
                        "redisbloom-2.8-crash" => Kind::Crash28,
                        other => return Err(format!("line {line}: unknown kind {other}")),
                    }
                }
                "commands" => {
                    rule.commands = value
                        .split_whitespace()
                        .map(|c| c.to_ascii_uppercase())
                        .collect()
                }
                "readme" => rule.readme = value,
                "args" => rule.cases.push(Case {
                    args: value.to_ascii_uppercase(),
                    rb: "*".into(),
                    rs: "*".into(),
                    origin: "*".into(),
                }),
                "rb" | "rs" | "origin" => {
                    let case = rule
                        .cases
                        .last_mut()
                        .ok_or_else(|| format!("line {line}: `{field}:` before `args:`"))?;
                    match field {
                        "rb" => case.rb = value,
                        "rs" => case.rs = value,
                        _ => case.origin = value.to_ascii_uppercase(),
                    }
                }
                other => return Err(format!("line {line}: unknown field `{other}`")),
            }
        }
        for r in &rules {
            if r.commands.is_empty() || r.readme.is_empty() {
                return Err(format!(
                    "rule {} (line {}) needs `commands:` and `readme:`",
                    r.id, r.line
                ));
            }
        }
        Ok(Rules { rules })
    }

    /// The first rule that lists this difference: `args` as `resp::show_args` writes them,
    /// the replies as `resp::render` does.
    pub fn classify(&self, args: &str, rb: &str, rs: &str) -> Option<&Rule> {
        self.classify_from(args, rb, rs, "?")
    }

    /// [`Rules::classify`] knowing the command that created the step's key.
    pub fn classify_from(&self, args: &str, rb: &str, rs: &str, origin: &str) -> Option<&Rule> {
        let (args, origin) = (args.to_ascii_uppercase(), origin.to_ascii_uppercase());
        self.rules
            .iter()
            .find(|r| r.matches_folded(&args, rb, rs, &origin))
    }

    /// [`Rules::classify`] on the raw arguments and raw replies.
    pub fn classify_raw(&self, args: &[Vec<u8>], rb: &[u8], rs: &[u8]) -> Option<&Rule> {
        self.classify(
            &super::resp::show_args(args),
            &super::resp::render(rb),
            &super::resp::render(rs),
        )
    }

    pub fn get(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }
}

/// `*` matches any run of characters, `%` any run without a space (one word, or part of
/// one), `?` one character; everything else itself.
pub fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    if p.contains(&'%') {
        return glob_words(&p, &t);
    }
    let (mut pi, mut ti) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        if pi < p.len() && (p[pi] == '?' || (p[pi] != '*' && p[pi] == t[ti])) {
            pi += 1;
            ti += 1;
        } else if pi < p.len() && p[pi] == '*' {
            star = Some((pi, ti));
            pi += 1;
        } else if let Some((sp, st)) = star {
            pi = sp + 1;
            ti = st + 1;
            star = Some((sp, st + 1));
        } else {
            return false;
        }
    }
    while pi < p.len() && p[pi] == '*' {
        pi += 1;
    }
    pi == p.len()
}

/// [`glob`] with `%`, by backtracking (the patterns that use `%` have few stars).
fn glob_words(p: &[char], t: &[char]) -> bool {
    match p.first() {
        None => t.is_empty(),
        Some('*') if p.len() == 1 => true,
        Some('*') => (0..=t.len()).any(|i| glob_words(&p[1..], &t[i..])),
        Some('%') => {
            for i in 0..=t.len() {
                if glob_words(&p[1..], &t[i..]) {
                    return true;
                }
                if i < t.len() && t[i] == ' ' {
                    return false;
                }
            }
            false
        }
        Some('?') => !t.is_empty() && glob_words(&p[1..], &t[1..]),
        Some(c) => t.first() == Some(c) && glob_words(&p[1..], &t[1..]),
    }
}

/// The rule ids the page `docs/differences.md` tags (`(diff: <id>)`), and the bullet items of
/// its sections (from its first `## ` heading on) without one (their first words).
pub fn page_tags(page: &str) -> (Vec<String>, Vec<String>) {
    let mut in_section = false;
    let mut tags = Vec::new();
    let mut untagged = Vec::new();
    let mut item = String::new();
    let mut flush = |item: &mut String, tags: &mut Vec<String>| {
        if item.is_empty() {
            return;
        }
        let mut found = false;
        let mut rest = item.as_str();
        while let Some(i) = rest.find("(diff: ") {
            let after = &rest[i + 7..];
            let end = after.find(')').unwrap_or(after.len());
            for id in after[..end].split(',') {
                tags.push(id.trim().to_string());
            }
            found = true;
            rest = &after[end..];
        }
        if !found {
            untagged.push(item.chars().take(60).collect());
        }
        item.clear();
    };
    for line in page.lines() {
        if line.starts_with("## ") {
            flush(&mut item, &mut tags);
            in_section = true;
            continue;
        }
        if !in_section {
            continue;
        }
        if line.starts_with("- ") {
            flush(&mut item, &mut tags);
            item.push_str(line);
        } else if line.starts_with("  ") && !item.is_empty() {
            item.push(' ');
            item.push_str(line.trim());
        } else {
            flush(&mut item, &mut tags);
        }
    }
    flush(&mut item, &mut tags);
    (tags, untagged)
}
