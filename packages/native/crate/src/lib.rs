//! `hashSubtrees` of `@blake3-web/core/hazmat` by the official `blake3` crate: the non-root
//! chaining values of consecutive subtrees. The JavaScript side (src/index.ts) checks the
//! arguments and names them in its errors; the checks here only keep the crate's assertions
//! (which would abort the process) from ever being reached.
use blake3::hazmat::{hash_derive_key_context, HasherExt};
use blake3::Hasher;
use napi::bindgen_prelude::*;
use napi_derive::napi;

const CHUNK_LEN: u64 = 1024;
const OUT_LEN: usize = 32;

/// The modes, as the loader passes them: the plain hash, a 32-byte key, a 32-byte context key.
const HASH: u32 = 0;
const KEYED: u32 = 1;
const DERIVE_KEY_MATERIAL: u32 = 2;

fn invalid(message: String) -> Error {
    Error::new(Status::InvalidArg, message)
}

/// The derive_key context key of `context` (`hash_derive_key_context`), computed once per mode.
#[napi(js_name = "contextKey")]
pub fn context_key(context: String) -> Uint8Array {
    Uint8Array::new(hash_derive_key_context(&context).to_vec())
}

/// Writes the chaining values of the subtrees of `subtree_chunks` chunks that make up `input`,
/// the first starting at chunk `counter`, into `out` (32 bytes each). Returns how many.
#[napi(js_name = "hashSubtreesInto")]
pub fn hash_subtrees_into(
    input: Uint8ArraySlice,
    counter: f64,
    subtree_chunks: u32,
    kind: u32,
    key: Uint8ArraySlice,
    mut out: Uint8ArraySlice,
) -> Result<u32> {
    let input: &[u8] = &input;
    let key: [u8; 32] = (*key)
        .try_into()
        .map_err(|_| invalid(format!("key must be 32 bytes, got {}", key.len())))?;
    let written = {
        let out: &[u8] = &out;
        out.as_ptr_range()
    };
    let read = input.as_ptr_range();
    if !out.is_empty() && !input.is_empty() && written.start < read.end && read.start < written.end {
        return Err(invalid("out must not overlap input".to_string()));
    }
    // SAFETY: the call is synchronous on the JavaScript thread, which cannot touch the buffer
    // meanwhile, `out` does not overlap `input`, and the key was copied.
    let out: &mut [u8] = unsafe { out.as_mut() };
    if !(counter >= 0.0 && counter <= 9007199254740991.0 && counter.fract() == 0.0) {
        return Err(invalid(format!("counter must be a safe integer, got {counter}")));
    }
    let counter = counter as u64;
    if subtree_chunks == 0 || !subtree_chunks.is_power_of_two() || subtree_chunks > 1 << 30 {
        return Err(invalid(format!("subtree_chunks must be a power of two, got {subtree_chunks}")));
    }
    if counter % subtree_chunks as u64 != 0 {
        return Err(invalid(format!("counter {counter} is not a multiple of {subtree_chunks}")));
    }
    if input.is_empty() {
        return Err(invalid("input must not be empty".to_string()));
    }
    let subtree_len = subtree_chunks as usize * CHUNK_LEN as usize;
    let count = input.len().div_ceil(subtree_len);
    if out.len() < count * OUT_LEN {
        return Err(invalid(format!("out must hold {} bytes, got {}", count * OUT_LEN, out.len())));
    }
    let fresh = || match kind {
        HASH => Ok(Hasher::new()),
        KEYED => Ok(Hasher::new_keyed(&key)),
        DERIVE_KEY_MATERIAL => Ok(Hasher::new_from_context_key(&key)),
        _ => Err(invalid(format!("kind must be 0, 1 or 2, got {kind}"))),
    };
    let mut at = counter * CHUNK_LEN;
    for (subtree, cv) in input.chunks(subtree_len).zip(out.chunks_exact_mut(OUT_LEN)) {
        let mut hasher = fresh()?;
        hasher.set_input_offset(at);
        hasher.update(subtree);
        cv.copy_from_slice(&hasher.finalize_non_root());
        at += subtree_len as u64;
    }
    Ok(count as u32)
}
