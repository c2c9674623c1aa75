//! Realistic text for the corpus: assistant prose (mostly English, with accents, CJK,
//! emoji, quotes, backslashes, code blocks, newlines and tabs), tool output and tool arguments.

use crate::rng::Rng;
use serde_json::{Value, json};

const WORDS: &[&str] = &[
    "the",
    "function",
    "returns",
    "a",
    "value",
    "when",
    "the",
    "error",
    "file",
    "module",
    "test",
    "we",
    "need",
    "to",
    "update",
    "config",
    "parser",
    "stream",
    "line",
    "should",
    "check",
    "this",
    "is",
    "because",
    "of",
    "in",
    "and",
    "it",
    "I",
    "will",
    "now",
    "run",
    "fix",
    "build",
    "output",
    "that",
    "change",
    "type",
    "field",
    "missing",
    "let",
    "me",
    "look",
    "at",
    "first",
    "then",
    "call",
    "struct",
    "trait",
    "implementation",
    "passes",
    "fails",
    "bytes",
];
const ACCENTED: &[&str] = &["déjà", "café", "naïve", "façade", "Übergröße", "señor", "crème brûlée", "Łódź", "Ærø"];
const CJK: &[&str] =
    &["这是一个测试", "日本語のテキスト", "한국어 문장", "数据流", "関数を呼び出す", "错误处理", "中文"];
const EMOJI: &[&str] = &["😀", "🚀", "👍🏽", "🇫🇷", "✅", "🔥", "🧪", "…", "—", "→"];
const CODE: &[&str] = &[
    "`foo()`",
    "\"quoted\"",
    "C:\\Users\\dev",
    "path\\to\\file",
    "\"key\": \"value\"",
    "a \\ b",
    "'single'",
    "{\"a\":1}",
    "x < y && y > z",
    "\\n",
    "`Vec<String>`",
];
const BLOCKS: &[&str] = &[
    "\n\n```rust\nfn main() {\n\tprintln!(\"héllo, {}\", name);\n}\n```\n\n",
    "\n\n```sh\ncargo test -p core -- --nocapture 2>&1 | grep \"FAILED\"\n```\n\n",
    "\n- first item\n- second item with `code`\n- third: \"quoted\"\n",
    "\n\n| col | value |\n|---|---|\n| a\tb | 1 |\n\n",
];

/// One sentence-ish run of assistant prose, ending with punctuation and a space or newline.
fn sentence(rng: &mut Rng, out: &mut String) {
    let words = rng.range(4, 18);
    for i in 0..words {
        if i > 0 {
            out.push(' ');
        }
        let roll = rng.range(0, 99);
        let word = match roll {
            0..=3 => rng.pick(ACCENTED),
            4..=6 => rng.pick(CJK),
            7..=9 => rng.pick(EMOJI),
            10..=14 => rng.pick(CODE),
            _ => rng.pick(WORDS),
        };
        out.push_str(word);
    }
    out.push_str(match rng.range(0, 9) {
        0 => ".\n\n",
        1 => ":\n",
        2 => "?\n",
        _ => ". ",
    });
}

/// A round's assistant text, of a length drawn from `chars` (lo, hi) characters.
pub(crate) fn prose(rng: &mut Rng, chars: (usize, usize)) -> String {
    let chars = rng.range(chars.0, chars.1);
    let mut out = String::with_capacity(chars * 2);
    let mut have = 0;
    while have < chars {
        let before = out.len();
        if rng.chance(0.06) {
            out.push_str(rng.pick(BLOCKS));
        } else {
            sentence(rng, &mut out);
        }
        have += out.get(before..).unwrap_or_default().chars().count();
    }
    out
}

/// Cuts `text` into streaming chunks of 2–40 characters (mostly short, like LLM tokens).
pub(crate) fn chunks<'t>(rng: &mut Rng, text: &'t str) -> Vec<&'t str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let want = if rng.chance(0.7) { rng.range(2, 12) } else { rng.range(13, 40) };
        let end = rest.char_indices().nth(want).map_or(rest.len(), |(i, _)| i);
        let (head, tail) = rest.split_at(end);
        out.push(head);
        rest = tail;
    }
    out
}

const FILES: &[&str] =
    &["src/lib.rs", "src/parser/mod.rs", "tests/stream.rs", "README.md", "docs/guide/intro.md", "Cargo.toml"];
const OUTPUT_LINES: &[&str] = &[
    "test parser::tests::escapes ... ok",
    "test stream::tests::splits_lines ... ok",
    "test writer::tests::bounds ... FAILED",
    "warning: unused variable: `x`",
    "  --> src/lib.rs:42:9",
    "error[E0308]: mismatched types",
    "\tat com.example.Main.run(Main.java:17)",
    "    let s = \"a \\\"quoted\\\" string\";",
    "    println!(\"résumé: {}\", value);",
    "// 注释：处理错误",
    "drwxr-xr-x  2 dev dev 4096 Jan  1 12:00 src",
    "{\"level\":\"info\",\"msg\":\"request done\",\"ms\":12}",
    "C:\\Program Files\\tool\\bin\\tool.exe --flag",
    "✓ 214 passed, 1 skipped 🎉",
];

/// Tool output of a length drawn from `chars` (lo, hi) bytes: lines of logs, code and listings.
pub(crate) fn tool_output(rng: &mut Rng, chars: (usize, usize)) -> String {
    let chars = rng.range(chars.0, chars.1);
    let mut out = String::with_capacity(chars + 80);
    while out.len() < chars {
        if rng.chance(0.3) {
            out.push_str(rng.pick(FILES));
            out.push(':');
            out.push_str(&rng.range(1, 900).to_string());
            out.push_str(":\t");
        }
        out.push_str(rng.pick(OUTPUT_LINES));
        out.push('\n');
    }
    out
}

/// A tool name and the JSON text of its arguments, as a provider streams them.
pub(crate) fn tool_call(rng: &mut Rng) -> (&'static str, String) {
    let file = rng.pick(FILES);
    let (name, args): (&str, Value) = match rng.range(0, 5) {
        0 => ("read", json!({"path": file, "offset": rng.range(0, 400), "limit": 200})),
        1 => (
            "bash",
            json!({"command": format!("cargo test -p core {} 2>&1 | tail -n 40", rng.pick(WORDS)),
                             "timeout": 120000, "description": "Run the tests"}),
        ),
        2 => ("grep", json!({"pattern": "fn \\w+\\(.*\"", "path": "src", "glob": "*.rs", "-n": true})),
        3 => (
            "edit",
            json!({"path": file, "old_string": "let x = \"old\";\n\tfoo(x);",
                             "new_string": format!("let x = \"{}\";\n\tfoo(&x)?;", rng.pick(ACCENTED)),
                             "replace_all": false}),
        ),
        4 => ("web_fetch", json!({"url": "https://example.com/docs/ünïcode?q=a%20b&lang=日本", "max_bytes": 65536.0})),
        _ => ("write", json!({"path": file, "content": prose(rng, (200, 400))})),
    };
    (name, args.to_string())
}

/// A plausible tool call id (`toolu_` plus 22 alphanumerics).
pub(crate) fn call_id(rng: &mut Rng) -> String {
    const ALNUM: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    let mut id = String::from("toolu_01");
    for _ in 0..22 {
        id.push(char::from(rng.pick(ALNUM)));
    }
    id
}
