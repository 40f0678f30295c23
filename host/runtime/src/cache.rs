//! Compiled components, cached on disk.
//!
//! Compiling a component with Cranelift takes about 0.4 s in a release host
//! (several seconds in a debug one); loading the precompiled artefact takes
//! well under a millisecond. The cache key is the SHA-256 of the component
//! bytes together with the engine's compatibility hash (wasmtime version and
//! every setting that affects code generation), so a changed component or a
//! different wasmtime never loads a stale artefact. Files are written to a
//! temporary name and renamed into place, so concurrent processes never see
//! a half-written file.
//!
//! The directory is `$HIVE_MIND_CACHE_DIR`, else the platform cache directory
//! (`~/.cache/hive-mind/components` on Linux). When it cannot be used the
//! component is simply compiled in memory.

use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use crate::HostError;

/// The environment variable that overrides the cache directory.
pub const CACHE_DIR_ENV: &str = "HIVE_MIND_CACHE_DIR";

/// The directory compiled components are cached in, if one can be named.
pub fn cache_dir() -> Option<PathBuf> {
    match std::env::var_os(CACHE_DIR_ENV) {
        Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
        _ => dirs::cache_dir().map(|dir| dir.join("hive-mind").join("components")),
    }
}

/// Load a component, from the cache when a matching compiled artefact exists,
/// else compiling it (and caching the result when possible).
pub fn load_component(
    engine: &Engine,
    name: &str,
    wasm: &[u8],
    dir: Option<&Path>,
) -> Result<Component, HostError> {
    let Some(dir) = dir else {
        return compile(engine, name, wasm);
    };
    let path = dir.join(format!("{name}-{}.cwasm", cache_key(engine, wasm)));
    if path.is_file() {
        match deserialize(engine, &path) {
            Ok(component) => return Ok(component),
            Err(error) => tracing::warn!(
                path = %path.display(),
                "ignoring an unusable cached component ({error:#}); recompiling"
            ),
        }
    }
    let component = compile(engine, name, wasm)?;
    if let Err(error) = store(&component, dir, &path) {
        tracing::warn!(path = %path.display(), "could not cache the compiled component: {error}");
    }
    Ok(component)
}

fn compile(engine: &Engine, name: &str, wasm: &[u8]) -> Result<Component, HostError> {
    Component::new(engine, wasm).map_err(|source| HostError::Load {
        name: name.into(),
        source,
    })
}

/// The hex key naming one (component, engine configuration) pair.
pub fn cache_key(engine: &Engine, wasm: &[u8]) -> String {
    let mut compatibility = std::collections::hash_map::DefaultHasher::new();
    engine
        .precompile_compatibility_hash()
        .hash(&mut compatibility);
    let mut digest = Sha256::new();
    digest.update(wasm);
    digest.update(compatibility.finish().to_le_bytes());
    hex::encode(&digest.finalize()[..16])
}

#[allow(unsafe_code)]
fn deserialize(engine: &Engine, path: &Path) -> wasmtime::Result<Component> {
    // SAFETY: `deserialize_file` trusts the file to be an artefact produced
    // by `Component::serialize` with a compatible engine. This file was
    // written by `store` below under a name that includes the engine's
    // compatibility hash, in the user's own cache directory; wasmtime also
    // checks the header and version and fails (rather than loading) on a
    // mismatch.
    unsafe { Component::deserialize_file(engine, path) }
}

fn store(component: &Component, dir: &Path, path: &Path) -> Result<(), HostError> {
    let io = |source| HostError::Io {
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let bytes = component.serialize().map_err(|source| HostError::Load {
        name: path.display().to_string(),
        source,
    })?;
    let temporary = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&temporary, bytes).map_err(io)?;
    std::fs::rename(&temporary, path).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caches_and_reloads_a_component() {
        let engine = crate::runtime::engine().unwrap();
        let dir = tempfile::tempdir().unwrap();
        // The smallest component the build makes (the sandbox probe): this
        // test compiles twice on purpose.
        let wasm = std::fs::read(crate::artifacts::SANDBOX_PROBE_PATH).unwrap();
        let wasm = wasm.as_slice();

        load_component(&engine, "probe", wasm, Some(dir.path())).unwrap();
        let cached: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(cached.len(), 1, "one artefact written");

        // A second load comes from the file: corrupt it and the loader must
        // notice, recompile and still succeed.
        let path = cached[0].as_ref().unwrap().path();
        deserialize(&engine, &path).unwrap();
        std::fs::write(&path, b"not a compiled component").unwrap();
        assert!(deserialize(&engine, &path).is_err());
        load_component(&engine, "probe", wasm, Some(dir.path())).unwrap();
        deserialize(&engine, &path).unwrap();
    }

    #[test]
    fn the_key_depends_on_the_bytes() {
        let engine = crate::runtime::engine().unwrap();
        assert_ne!(cache_key(&engine, b"a"), cache_key(&engine, b"b"));
        assert_eq!(cache_key(&engine, b"a"), cache_key(&engine, b"a"));
    }
}
