//! Imports: a history, a document or a page harvested into one mind. One
//! request for every surface that imports: `hive-mind import`, MCP
//! `harvest_import` and `ingest_source`, `POST /api/imports`, and the hook
//! that imports a session at its end when it works alone.
//!
//! An import is long: the engine's harvest job is stepped to its end by
//! the runtime's loop ([`hive_mind_runtime::engine::import`]), which a
//! surface drives its own way (the CLI with a progress bar, MCP with the
//! engine locked one step at a time, the server as a job on its pool). So
//! the request is judged first, and what running it answers is the
//! [`Admitted`] import: the options the loop runs with, which only this
//! module makes, from a request the caller's grant allowed.
//!
//! Whether an import may make its mind is part of the request: an import
//! at the command line, through the server or from a hook makes a
//! workspace's mind by its first write, as every write there does; MCP
//! imports only into a mind that is there (a workspace is made with
//! `create_workspace`), so a mistyped id is an error, not a new mind.

use hive_mind_runtime::engine::EngineRuntime;
use hive_mind_runtime::engine::wit_harvest::ImportOptions;
use hive_mind_runtime::engine::wit_types::Mind;

use super::{Access, Caller, OpError, Operation};

/// An import into one mind, not yet judged.
pub struct Import {
    /// What the engine's harvest runs with (the mind among them).
    options: ImportOptions,
    /// Whether it may make a workspace's mind that is not there yet.
    creates: bool,
}

/// An import the caller's grant allowed: the options the runtime's loop
/// runs it with.
#[derive(Debug, Clone)]
pub struct Admitted {
    options: ImportOptions,
}

impl Admitted {
    /// The options to run the import with.
    pub fn options(&self) -> &ImportOptions {
        &self.options
    }

    /// The mind it writes.
    pub fn mind(&self) -> &Mind {
        &self.options.mind
    }
}

impl Import {
    /// An import into a mind that must be there.
    pub fn into_existing(options: ImportOptions) -> Import {
        Import {
            options,
            creates: false,
        }
    }

    /// An import that makes a workspace's mind by its first write.
    pub fn creating(options: ImportOptions) -> Import {
        Import {
            options,
            creates: true,
        }
    }

    /// What it writes: its mind (which, for a [`Import::creating`], need
    /// not be there).
    pub fn access(&self) -> Access {
        let access = Access::write(self.options.mind.clone());
        if self.creates {
            access.creating()
        } else {
            access
        }
    }

    /// Admit an import that may make its mind on the caller's grant alone,
    /// before an engine is taken or an upload read (there is no mind to
    /// find). An import into an existing mind needs the engine to look:
    /// it is refused here and goes through [`super::execute`].
    pub fn admit(self, caller: &Caller) -> Result<Admitted, OpError> {
        let access = self.access();
        if access.existing {
            return Err(OpError::Invalid(
                "an import into an existing mind is admitted with the engine".to_string(),
            ));
        }
        caller.authorize(&access)?;
        Ok(Admitted {
            options: self.options,
        })
    }
}

impl Operation for Import {
    type Output = Admitted;

    fn access(&self, _engine: &mut EngineRuntime) -> Result<Access, OpError> {
        Ok(Import::access(self))
    }

    /// Nothing is written yet: the admitted import is run by the runtime's
    /// loop, the surface's way.
    fn run(self, _engine: &mut EngineRuntime) -> Result<Admitted, OpError> {
        Ok(Admitted {
            options: self.options,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tokens::{Grant, Scope};
    use hive_mind_runtime::engine::convert;
    use hive_mind_runtime::engine::wit_harvest::Distillation;

    fn options(mind: Mind) -> ImportOptions {
        ImportOptions {
            source: None,
            mind,
            distillation: Distillation::Auto,
            dry_run: false,
        }
    }

    #[test]
    fn an_import_is_a_write_of_its_mind_and_only_a_creating_one_is_admitted_without_the_engine() {
        let acme = Mind::Workspace("acme".to_string());
        let token = |scope| {
            Caller::Token(Grant {
                name: "t".to_string(),
                scope,
                minds: vec!["workspace:acme".to_string()],
            })
        };
        let admitted = Import::creating(options(acme.clone())).admit(&token(Scope::Write));
        assert_eq!(
            admitted
                .ok()
                .map(|admitted| convert::mind_name(admitted.mind())),
            Some("workspace:acme".to_string())
        );
        assert!(matches!(
            Import::creating(options(acme.clone())).admit(&token(Scope::Read)),
            Err(OpError::Forbidden(_))
        ));
        assert!(matches!(
            Import::creating(options(Mind::Personal)).admit(&token(Scope::Admin)),
            Err(OpError::Forbidden(_))
        ));
        assert!(matches!(
            Import::into_existing(options(acme.clone())).admit(&Caller::Owner),
            Err(OpError::Invalid(_))
        ));
        assert!(Import::into_existing(options(acme)).access().existing);
    }
}
