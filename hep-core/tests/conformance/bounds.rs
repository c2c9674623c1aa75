//! `bounds/`: caps in UTF-16 units and the two `args_summary` renderings.

use super::{Res, get, get_text, get_u64, same_text, text};
use hep_core::bounds::{args_full, args_summary, cap, utf16_len};
use hep_core::{Args, parse_args};
use serde_json::Value;

pub(crate) fn run(case: &Value) -> Res {
    let op = super::get_str(case, "op")?;
    let got = match op {
        "utf16_len" => {
            let (want, got) = (get_u64(case, "expected")?, utf16_len(&get_text(case, "text")?));
            return if u64::try_from(got).ok() == Some(want) {
                Ok(())
            } else {
                Err(format!("utf16_len is {got} instead of {want}"))
            };
        }
        "cap" => {
            let limit = usize::try_from(get_u64(case, "limit")?).map_err(|e| e.to_string())?;
            cap(&get_text(case, "text")?, limit)
        }
        "args_summary" => args_summary(&args(case)?),
        "args_full" => args_full(&args(case)?),
        other => return Err(format!("unknown op `{other}`")),
    };
    let expected = text(get(case, "expected")?).map_err(|e| format!("field `expected`: {e}"))?;
    same_text(&format!("`{op}`"), &expected, &got)
}

fn args(case: &Value) -> Res<Args> {
    parse_args(&get_text(case, "args")?).map_err(|e| format!("the library cannot parse `args`: {e}"))
}
