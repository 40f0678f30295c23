//! Compiled components, cached on disk.
//!
//! Compiling a component with Cranelift takes about 0.4 s in a release host
//! (several seconds in a debug one); loading the precompiled artefact takes
//! well under a millisecond. The cache key is the SHA-256 of the component
//! bytes together with the engine's compatibility hash (wasmtime version and
//! every setting that affects code generation), so a changed component or a
//! different wasmtime never loads a stale artefact. Files are written to a
//! temporary name and renamed into place, so concurrent processes never see
//! a half-written file. A miss takes an exclusive lock on a file beside the
//! artefact's before it compiles, and looks again once it holds it: processes
//! that start cold at the same moment (a test suite's, several MCP servers)
//! compile each component once, not once each — a debug host takes about two
//! minutes per compile of the engine.
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
    load(engine, name, wasm, dir).map(|(component, _)| component)
}

/// [`load_component`], saying whether this call compiled the component.
fn load(
    engine: &Engine,
    name: &str,
    wasm: &[u8],
    dir: Option<&Path>,
) -> Result<(Component, bool), HostError> {
    let Some(dir) = dir else {
        return Ok((compile(engine, name, wasm)?, true));
    };
    let key = cache_key(engine, wasm);
    let path = dir.join(format!("{name}-{key}.cwasm"));
    if let Some(component) = cached(engine, &path) {
        return Ok((component, false));
    }
    // Another process may be compiling the same component: wait for it,
    // then use what it wrote. Without a lock (a read-only or odd file
    // system) every process compiles for itself, as before.
    let lock = lock_file(dir, &format!("{name}-{key}.lock"));
    if lock.is_some()
        && let Some(component) = cached(engine, &path)
    {
        return Ok((component, false));
    }
    let component = compile(engine, name, wasm)?;
    if let Err(error) = store(&component, dir, &path) {
        tracing::warn!(path = %path.display(), "could not cache the compiled component: {error}");
    }
    drop(lock);
    Ok((component, true))
}

/// The artefact at `path`, when there is a usable one.
fn cached(engine: &Engine, path: &Path) -> Option<Component> {
    if !path.is_file() {
        return None;
    }
    match deserialize(engine, path) {
        Ok(component) => Some(component),
        Err(error) => {
            tracing::warn!(
                path = %path.display(),
                "ignoring an unusable cached component ({error:#}); recompiling"
            );
            None
        }
    }
}

/// An exclusive lock on `dir/name` (released when the file is dropped), or
/// `None` when the file cannot be made or locked.
fn lock_file(dir: &Path, name: &str) -> Option<std::fs::File> {
    std::fs::create_dir_all(dir).ok()?;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(name))
        .ok()?;
    match file.lock() {
        Ok(()) => Some(file),
        Err(error) => {
            tracing::debug!("could not lock the compile cache ({error}); compiling alone");
            None
        }
    }
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
        let cached: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter(|entry| entry.as_ref().unwrap().path().extension() == Some("cwasm".as_ref()))
            .collect();
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
    fn loads_that_start_cold_together_compile_once() {
        let engine = crate::runtime::engine().unwrap();
        let dir = tempfile::tempdir().unwrap();
        let wasm = std::fs::read(crate::artifacts::SANDBOX_PROBE_PATH).unwrap();
        let compiled = std::thread::scope(|scope| {
            let loads: Vec<_> = (0..4)
                .map(|_| scope.spawn(|| load(&engine, "probe", &wasm, Some(dir.path())).unwrap().1))
                .collect();
            loads
                .into_iter()
                .map(|load| load.join().unwrap())
                .filter(|compiled| *compiled)
                .count()
        });
        assert_eq!(
            compiled, 1,
            "one load compiles, the others wait and read it"
        );
    }

    #[test]
    fn the_key_depends_on_the_bytes() {
        let engine = crate::runtime::engine().unwrap();
        assert_ne!(cache_key(&engine, b"a"), cache_key(&engine, b"b"));
        assert_eq!(cache_key(&engine, b"a"), cache_key(&engine, b"a"));
    }
}
