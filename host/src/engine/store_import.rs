//! The `hive:mind/store` import, served from [`crate::store::Minds`].
//!
//! Each function converts its WIT arguments ([`super::convert`]), calls the
//! store, and converts the result back; store errors become the WIT `error`
//! variant case for case. Reads of a workspace mind that was never written
//! are `not-found`; writes create it.

use super::EngineState;
use super::bindings::hive::mind::store::{
    self as wit, AwarenessAdded, AwarenessItem, ChunkVector, Entity, Error, FilteredSearch,
    FrameLink, Hit, Identity, NewBranch, NewFrame, Relation, SavedFrame, SearchFilter, Session,
};
use super::convert::{
    awareness_out, chunks_in, entity_out, error_out, filter_in, frame_out, hit_out, identity_in,
    identity_out, importance_in, mind_in, new_frame_in, ref_in, relation_out, saved_out,
    session_out,
};
use super::wit_types::{Frame, FrameRef, Importance, Mind};
use crate::store::awareness::{NewAwareness, WhenFull};
use crate::store::frames;
use crate::store::{BranchContent, MindStore, Minds, StoreResult};

type Result<T> = std::result::Result<T, Error>;

impl EngineState {
    fn minds(&mut self) -> &mut Minds {
        &mut self.capabilities.minds
    }

    /// An existing mind (reads).
    fn read(&mut self, mind: &Mind) -> StoreResult<&mut MindStore> {
        let mind = mind_in(mind)?;
        self.minds().mind(&mind)
    }

    /// A mind, created on first write.
    fn write(&mut self, mind: &Mind) -> StoreResult<&mut MindStore> {
        let mind = mind_in(mind)?;
        self.minds().mind_or_create(&mind)
    }
}

/// Run a store operation, translating its error.
fn run<T>(operation: impl FnOnce() -> StoreResult<T>) -> Result<T> {
    operation().map_err(error_out)
}

impl super::wit_types::Host for EngineState {}

impl wit::Host for EngineState {
    fn save_frame(&mut self, frame: NewFrame) -> Result<SavedFrame> {
        run(|| {
            let frame = new_frame_in(&frame)?;
            Ok(saved_out(&self.minds().save_frame(frame)?))
        })
    }

    fn save_frames(&mut self, mind: Mind, frames: Vec<NewFrame>) -> Result<Vec<SavedFrame>> {
        run(|| {
            let target = mind_in(&mind)?;
            let mut native = Vec::with_capacity(frames.len());
            for frame in &frames {
                let frame = new_frame_in(frame)?;
                if frame.mind != target {
                    return Err(crate::store::StoreError::InvalidInput(format!(
                        "save-frames to {target} got a frame for {}",
                        frame.mind
                    )));
                }
                native.push(frame);
            }
            let saved = self.minds().save_frames(&target, native)?;
            Ok(saved.iter().map(saved_out).collect())
        })
    }

    fn save_branch(&mut self, branch: NewBranch) -> Result<SavedFrame> {
        run(|| {
            let native = frames::NewBranch {
                base_frame_id: branch.base_frame_id,
                branch: BranchContent {
                    description: branch.description.clone(),
                    references: branch.references.clone(),
                },
                gop_id: branch.gop_id.clone(),
                importance: importance_in(branch.importance),
                source: super::convert::source_in(branch.source),
                created_at: branch.created_at.clone(),
                metadata: branch.metadata.clone(),
                embedding: branch.embedding.clone(),
                chunks: chunks_in(&branch.chunks),
            };
            Ok(saved_out(&self.write(&branch.mind)?.save_branch(native)?))
        })
    }

    fn update_frame(
        &mut self,
        frame_ref: FrameRef,
        content: String,
        embedding: Vec<f32>,
        chunks: Vec<ChunkVector>,
    ) -> Result<Frame> {
        run(|| {
            let chunks = chunks_in(&chunks);
            let frame = self.read(&frame_ref.mind)?.update_frame(
                frame_ref.id,
                &content,
                &embedding,
                &chunks,
            )?;
            Ok(frame_out(&frame))
        })
    }

    fn set_importance(&mut self, frame_ref: FrameRef, importance: Importance) -> Result<Frame> {
        run(|| {
            let frame = self
                .read(&frame_ref.mind)?
                .set_importance(frame_ref.id, importance_in(importance))?;
            Ok(frame_out(&frame))
        })
    }

    fn delete_frame(&mut self, frame_ref: FrameRef) -> Result<()> {
        run(|| self.read(&frame_ref.mind)?.delete_frame(frame_ref.id))
    }

    fn get_frames(&mut self, refs: Vec<FrameRef>) -> Result<Vec<Frame>> {
        run(|| {
            let refs = refs.iter().map(ref_in).collect::<StoreResult<Vec<_>>>()?;
            Ok(self
                .minds()
                .get_frames(&refs)?
                .iter()
                .map(frame_out)
                .collect())
        })
    }

    fn touch_frames(&mut self, refs: Vec<FrameRef>) -> Result<()> {
        run(|| {
            let refs = refs.iter().map(ref_in).collect::<StoreResult<Vec<_>>>()?;
            self.minds().touch_frames(&refs)
        })
    }

    fn link_frames(&mut self, frame: FrameRef, related: Vec<FrameLink>) -> Result<()> {
        run(|| {
            let links: Vec<(u64, f64)> = related
                .iter()
                .map(|link| (link.id, link.similarity))
                .collect();
            self.read(&frame.mind)?.link_frames(frame.id, &links)
        })
    }

    fn related_frames(&mut self, frame: FrameRef, limit: u32) -> Result<Vec<FrameLink>> {
        run(|| {
            Ok(self
                .read(&frame.mind)?
                .related_frames(frame.id, limit)?
                .into_iter()
                .map(|(id, similarity)| FrameLink { id, similarity })
                .collect())
        })
    }

    fn search_text(&mut self, query: String, filter: SearchFilter, limit: u32) -> Result<Vec<Hit>> {
        let started = std::time::Instant::now();
        let result = run(|| {
            let filter = filter_in(&filter)?;
            let hits = self.minds().search_text(&query, &filter, limit)?;
            Ok(hits.iter().map(hit_out).collect())
        });
        self.timings.search_text += started.elapsed();
        result
    }

    fn search_vector(
        &mut self,
        embedding: Vec<f32>,
        filter: SearchFilter,
        limit: u32,
    ) -> Result<Vec<Hit>> {
        let started = std::time::Instant::now();
        let result = run(|| {
            let filter = filter_in(&filter)?;
            let hits = self.minds().search_vector(&embedding, &filter, limit)?;
            Ok(hits.iter().map(hit_out).collect())
        });
        self.timings.search_vector += started.elapsed();
        result
    }

    fn search_text_many(
        &mut self,
        query: String,
        searches: Vec<FilteredSearch>,
    ) -> Result<Vec<Vec<Hit>>> {
        let started = std::time::Instant::now();
        let result = run(|| {
            let searches = searches_in(&searches)?;
            let found = self.minds().search_text_many(&query, &searches)?;
            Ok(found
                .iter()
                .map(|hits| hits.iter().map(hit_out).collect())
                .collect())
        });
        self.timings.search_text += started.elapsed();
        result
    }

    fn search_vector_many(
        &mut self,
        embedding: Vec<f32>,
        searches: Vec<FilteredSearch>,
    ) -> Result<Vec<Vec<Hit>>> {
        let started = std::time::Instant::now();
        let result = run(|| {
            let searches = searches_in(&searches)?;
            let found = self.minds().search_vector_many(&embedding, &searches)?;
            Ok(found
                .iter()
                .map(|hits| hits.iter().map(hit_out).collect())
                .collect())
        });
        self.timings.search_vector += started.elapsed();
        result
    }

    fn list_frames(
        &mut self,
        filter: SearchFilter,
        oldest_first: bool,
        limit: u32,
    ) -> Result<Vec<Frame>> {
        let started = std::time::Instant::now();
        let result = run(|| {
            let filter = filter_in(&filter)?;
            let frames = self.minds().list_frames(&filter, oldest_first, limit)?;
            Ok(frames.iter().map(frame_out).collect())
        });
        self.timings.list_frames += started.elapsed();
        result
    }

    fn upsert_entity(
        &mut self,
        mind: Mind,
        name: String,
        entity_type: String,
        frames: Vec<u64>,
    ) -> Result<Entity> {
        run(|| {
            let entity = self
                .write(&mind)?
                .upsert_entity(&name, &entity_type, &frames)?;
            Ok(entity_out(&entity))
        })
    }

    fn find_entities(&mut self, mind: Mind, name: String) -> Result<Vec<Entity>> {
        run(|| {
            Ok(self
                .read(&mind)?
                .find_entities(&name)?
                .iter()
                .map(entity_out)
                .collect())
        })
    }

    fn search_entities(&mut self, mind: Mind, text: String, limit: u32) -> Result<Vec<Entity>> {
        run(|| {
            let entities = self.read(&mind)?.search_entities(&text, limit)?;
            Ok(entities.iter().map(entity_out).collect())
        })
    }

    fn relate(
        &mut self,
        mind: Mind,
        subject: u64,
        relation: String,
        object: u64,
        strength: f64,
    ) -> Result<Relation> {
        run(|| {
            let relation = self
                .write(&mind)?
                .relate(subject, &relation, object, strength)?;
            Ok(relation_out(&relation))
        })
    }

    fn relations(&mut self, mind: Mind, entity: u64) -> Result<Vec<Relation>> {
        run(|| {
            let relations = self.read(&mind)?.relations(entity)?;
            Ok(relations.iter().map(relation_out).collect())
        })
    }

    fn retire_entity(&mut self, mind: Mind, entity: u64) -> Result<()> {
        run(|| self.read(&mind)?.retire_entity(entity))
    }

    fn dedupe_entities(&mut self, mind: Mind) -> Result<u64> {
        run(|| self.read(&mind)?.dedupe_entities())
    }

    fn entity_distances(
        &mut self,
        mind: Mind,
        entities: Vec<u64>,
        max_depth: u32,
    ) -> Result<Vec<(u64, u32)>> {
        run(|| self.read(&mind)?.entity_distances(&entities, max_depth))
    }

    fn frame_distances(
        &mut self,
        mind: Mind,
        entities: Vec<u64>,
        max_depth: u32,
    ) -> Result<Vec<(u64, u32)>> {
        run(|| self.read(&mind)?.frame_distances(&entities, max_depth))
    }

    fn get_identity(&mut self, mind: Mind) -> Result<Option<Identity>> {
        run(|| Ok(self.read(&mind)?.identity()?.as_ref().map(identity_out)))
    }

    fn set_identity(&mut self, mind: Mind, identity: Identity) -> Result<Identity> {
        run(|| {
            let identity = self.write(&mind)?.set_identity(&identity_in(&identity))?;
            Ok(identity_out(&identity))
        })
    }

    fn list_awareness(&mut self, mind: Mind) -> Result<Vec<AwarenessItem>> {
        run(|| {
            Ok(self
                .read(&mind)?
                .awareness()?
                .iter()
                .map(awareness_out)
                .collect())
        })
    }

    fn add_awareness(
        &mut self,
        mind: Mind,
        category: String,
        content: String,
        priority: i64,
        expires_at: Option<String>,
        evict: bool,
    ) -> Result<AwarenessAdded> {
        run(|| {
            let new = NewAwareness {
                category,
                content,
                priority,
                expires_at,
                metadata: None,
            };
            let when_full = if evict {
                WhenFull::EvictLowest
            } else {
                WhenFull::Refuse
            };
            let added = self.write(&mind)?.add_awareness(&new, when_full)?;
            Ok(AwarenessAdded {
                item: awareness_out(&added.item),
                evicted: added.evicted.as_ref().map(awareness_out),
            })
        })
    }

    fn remove_awareness(&mut self, mind: Mind, id: u64) -> Result<()> {
        run(|| self.read(&mind)?.remove_awareness(id))
    }

    fn ensure_active_session(&mut self, mind: Mind, project: Option<String>) -> Result<Session> {
        run(|| {
            let session = self
                .write(&mind)?
                .ensure_active_session(project.as_deref())?;
            Ok(session_out(&session))
        })
    }

    fn ensure_session(
        &mut self,
        mind: Mind,
        gop_id: String,
        project: Option<String>,
    ) -> Result<Session> {
        run(|| {
            let session = self
                .write(&mind)?
                .ensure_session(&gop_id, project.as_deref())?;
            Ok(session_out(&session))
        })
    }

    fn close_session(
        &mut self,
        mind: Mind,
        gop_id: String,
        summary: Option<String>,
    ) -> Result<Session> {
        run(|| {
            let session = self
                .read(&mind)?
                .close_session(&gop_id, summary.as_deref())?;
            Ok(session_out(&session))
        })
    }
}

/// WIT searches as the store's (filter, limit) pairs.
fn searches_in(searches: &[FilteredSearch]) -> StoreResult<Vec<(crate::store::SearchFilter, u32)>> {
    searches
        .iter()
        .map(|search| Ok((filter_in(&search.filter)?, search.limit)))
        .collect()
}
