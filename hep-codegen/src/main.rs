//! `hep-codegen write` writes every generated file; `hep-codegen check` lists the stale ones
//! and exits 1 if there are any.

use std::process::ExitCode;

fn main() -> ExitCode {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let files = match hep_codegen::generate() {
        Ok(files) => files,
        Err(problem) => {
            eprintln!("hep-codegen: cannot read hep-core's frame model: {problem}");
            return ExitCode::FAILURE;
        }
    };
    let root = hep_codegen::root();
    match mode.as_str() {
        "write" => {
            for file in &files {
                let path = root.join(&file.path);
                let unchanged = std::fs::read_to_string(&path).ok().as_deref() == Some(file.contents.as_str());
                if unchanged {
                    continue;
                }
                if let Err(e) = path
                    .parent()
                    .map_or(Ok(()), std::fs::create_dir_all)
                    .and_then(|()| std::fs::write(&path, &file.contents))
                {
                    eprintln!("hep-codegen: cannot write {}: {e}", file.path.display());
                    return ExitCode::FAILURE;
                }
                println!("hep-codegen: wrote {}", file.path.display());
            }
            println!("hep-codegen: {} generated files up to date", files.len());
            ExitCode::SUCCESS
        }
        "check" => {
            let stale = hep_codegen::stale(&root, &files);
            for path in &stale {
                eprintln!("hep-codegen: {} is stale: run `make codegen`", path.display());
            }
            if stale.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
        }
        _ => {
            eprintln!("usage: hep-codegen write|check");
            ExitCode::from(2)
        }
    }
}
