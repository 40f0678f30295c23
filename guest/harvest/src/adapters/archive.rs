//! Zip containers: the ChatGPT and claude.ai export zips, Takeout zips, and
//! archives of documents — opened inside the sandbox.
//!
//! # Which entries are read
//!
//! Entry *names* choose what to open (content still decides each entry's
//! format):
//!
//! - An export zip has a main entry: `conversations.json` (ChatGPT,
//!   claude.ai) or Takeout's `MyActivity.json`. When there is one, only the
//!   main entries are read; the rest (`chat.html`, which repeats the same
//!   conversations, `users.json`, images, audio) are noted by name.
//! - Otherwise every `.md`, `.markdown`, `.txt`, `.text`, `.json`,
//!   `.jsonl`, `.ndjson`, `.pdf`, `.html`, `.htm` entry is read as a
//!   document or export of its own; other entries are noted. A zip inside
//!   the zip is not opened (noted). macOS metadata (`__MACOSX/`, `._*`,
//!   `.DS_Store`) is skipped silently.
//!
//! An entry that fails to parse is noted and the others are still read;
//! the archive fails only when no entry is readable. The result's format is
//! the main entry's, else the format most items came from.
//!
//! # Zip bombs
//!
//! A zip can declare small sizes and inflate to gigabytes, or declare
//! millions of entries. Each cap fails the whole archive with
//! [`ParseError::TooLarge`] (a bomb is hostile; nothing of it is trusted):
//!
//! - at most [`MAX_ARCHIVE_ENTRIES`] entries, checked against the end
//!   record *before* the directory is read;
//! - at most [`MAX_ENTRY_BYTES`] inflated per entry and
//!   [`MAX_ARCHIVE_BYTES`] over all entries read, counted on the bytes that
//!   actually come out (declared sizes can lie), entries read one at a
//!   time and dropped once parsed;
//! - an entry over 1 MiB may inflate at most [`MAX_COMPRESSION_RATIO`]
//!   times its compressed size (JSON exports compress 5–20×; deflate's
//!   limit is ~1000×, which is what bombs use).

use std::io::{Cursor, Read};

use zip::ZipArchive;

use super::{ParseError, parse_plain, size_label};
use crate::item::{Parsed, SourceFormat};

/// The most entries an archive may have.
pub const MAX_ARCHIVE_ENTRIES: usize = 50_000;
/// The most one entry may inflate to (512 MiB).
pub const MAX_ENTRY_BYTES: u64 = 512 << 20;
/// The most all entries read may inflate to together (1 GiB).
pub const MAX_ARCHIVE_BYTES: u64 = 1 << 30;
/// The most an entry over 1 MiB may inflate relative to its compressed size.
pub const MAX_COMPRESSION_RATIO: u64 = 100;
/// Entries up to this size are not held to the ratio (a small file of
/// repeated lines compresses very well and harms no one).
const RATIO_FLOOR_BYTES: u64 = 1 << 20;
/// Entries named in a note, at most.
const NAMED_IN_NOTES: usize = 8;

const DOCUMENT_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "text", "json", "jsonl", "ndjson", "pdf", "html", "htm",
];

struct Entry {
    index: usize,
    name: String,
    size: u64,
    compressed: u64,
    encrypted: bool,
}

/// The entries to read, and those left out.
struct Selection {
    read: Vec<Entry>,
    skipped: Vec<String>,
    nested: Vec<String>,
    main: bool,
}

fn unreadable(name: &str, why: impl std::fmt::Display) -> ParseError {
    ParseError::Unrecognised(format!("{name}: a zip archive that cannot be read ({why})"))
}

/// The entry count the end-of-central-directory record declares (the
/// zip64 record's when the classic one says 0xFFFF).
fn declared_entries(bytes: &[u8]) -> Option<u64> {
    let search_from = bytes.len().saturating_sub(65_535 + 22);
    // The last 22-byte record (the fixed part's size) that starts with the
    // signature, from `search_from` on.
    let (eocd, _) = bytes
        .windows(22)
        .enumerate()
        .skip(search_from)
        .rev()
        .find(|(_, record)| record.starts_with(b"PK\x05\x06"))?;
    let count = u16::from_le_bytes([*bytes.get(eocd + 10)?, *bytes.get(eocd + 11)?]);
    if count != 0xFFFF {
        return Some(u64::from(count));
    }
    let locator = eocd.checked_sub(20)?;
    if !bytes.get(locator..)?.starts_with(b"PK\x06\x07") {
        return Some(u64::from(count));
    }
    let offset_bytes: [u8; 8] = bytes.get(locator + 8..locator + 16)?.try_into().ok()?;
    let record = usize::try_from(u64::from_le_bytes(offset_bytes)).ok()?;
    if !bytes.get(record..)?.starts_with(b"PK\x06\x06") {
        return None;
    }
    let count_bytes: [u8; 8] = bytes.get(record + 32..record + 40)?.try_into().ok()?;
    Some(u64::from_le_bytes(count_bytes))
}

fn open<'a>(name: &str, bytes: &'a [u8]) -> Result<ZipArchive<Cursor<&'a [u8]>>, ParseError> {
    match declared_entries(bytes) {
        Some(count) if count > MAX_ARCHIVE_ENTRIES as u64 => {
            return Err(ParseError::TooLarge(format!(
                "{name}: the zip declares {count} entries; harvest reads archives of at most {MAX_ARCHIVE_ENTRIES}"
            )));
        }
        Some(_) => {}
        None => return Err(unreadable(name, "no end-of-directory record; truncated?")),
    }
    let archive = ZipArchive::new(Cursor::new(bytes)).map_err(|e| unreadable(name, e))?;
    if archive.len() > MAX_ARCHIVE_ENTRIES {
        return Err(ParseError::TooLarge(format!(
            "{name}: the zip has {} entries; harvest reads archives of at most {MAX_ARCHIVE_ENTRIES}",
            archive.len()
        )));
    }
    Ok(archive)
}

fn base_name(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

fn select(archive: &mut ZipArchive<Cursor<&[u8]>>) -> Selection {
    let mut all = Vec::new();
    for index in 0..archive.len() {
        let Ok(file) = archive.by_index_raw(index) else {
            continue;
        };
        if file.is_dir() {
            continue;
        }
        let name = match file.name() {
            Ok(name) => name.into_owned(),
            Err(_) => String::from_utf8_lossy(file.name_raw()).into_owned(),
        };
        let base = base_name(&name);
        if name.starts_with("__MACOSX/") || base.starts_with("._") || base == ".DS_Store" {
            continue;
        }
        all.push(Entry {
            index,
            size: file.size(),
            compressed: file.compressed_size(),
            encrypted: file.encrypted(),
            name,
        });
    }
    let is_main = |entry: &Entry| {
        let base = base_name(&entry.name);
        base.eq_ignore_ascii_case("conversations.json")
            || base.eq_ignore_ascii_case("MyActivity.json")
    };
    let main = all.iter().any(is_main);
    let mut selection = Selection {
        read: Vec::new(),
        skipped: Vec::new(),
        nested: Vec::new(),
        main,
    };
    for entry in all {
        let extension = base_name(&entry.name)
            .rsplit_once('.')
            .map(|(_, e)| e.to_ascii_lowercase());
        let wanted = if main {
            is_main(&entry)
        } else {
            extension
                .as_deref()
                .is_some_and(|e| DOCUMENT_EXTENSIONS.contains(&e))
        };
        if wanted {
            selection.read.push(entry);
        } else if extension.as_deref() == Some("zip") {
            selection.nested.push(entry.name);
        } else {
            selection.skipped.push(entry.name);
        }
    }
    selection
}

/// Caps on one entry, before and while it is read.
struct Budget {
    total: u64,
}

impl Budget {
    fn check_declared(&self, archive_name: &str, entry: &Entry) -> Result<(), ParseError> {
        if entry.size > MAX_ENTRY_BYTES {
            return Err(ParseError::TooLarge(format!(
                "{archive_name}: entry {} inflates to {}; harvest reads entries of at most {}",
                entry.name,
                size_label(entry.size),
                size_label(MAX_ENTRY_BYTES)
            )));
        }
        if entry.size > RATIO_FLOOR_BYTES
            && entry.size / entry.compressed.max(1) > MAX_COMPRESSION_RATIO
        {
            return Err(ParseError::TooLarge(format!(
                "{archive_name}: entry {} inflates {}× ({} from {}): a zip bomb?",
                entry.name,
                entry.size / entry.compressed.max(1),
                size_label(entry.size),
                size_label(entry.compressed)
            )));
        }
        if self.total + entry.size > MAX_ARCHIVE_BYTES {
            return Err(ParseError::TooLarge(format!(
                "{archive_name}: the entries inflate to more than {} in all",
                size_label(MAX_ARCHIVE_BYTES)
            )));
        }
        Ok(())
    }

    /// Read an entry, counting what actually comes out against every cap.
    /// `limit` reads only a prefix (for detection).
    fn read(
        &mut self,
        archive_name: &str,
        archive: &mut ZipArchive<Cursor<&[u8]>>,
        entry: &Entry,
        limit: Option<u64>,
    ) -> Result<Result<Vec<u8>, String>, ParseError> {
        if entry.encrypted {
            return Ok(Err("encrypted".into()));
        }
        let mut file = match archive.by_index(entry.index) {
            Ok(file) => file,
            Err(error) => return Ok(Err(error.to_string())),
        };
        let capacity = entry.size.min(limit.unwrap_or(u64::MAX)).min(64 << 20);
        let mut out = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
        let mut buffer = vec![0u8; 64 << 10];
        loop {
            // Up to the declared size, then one byte more: the reader fails
            // a read that crosses the declared size, and this way it fails
            // only once every declared byte is in, which tells a header
            // that lies from a damaged stream.
            let got = out.len() as u64;
            let want = if got < entry.size {
                usize::try_from(entry.size - got)
                    .unwrap_or(usize::MAX)
                    .min(buffer.len())
            } else {
                1
            };
            let n = match (&mut file).take(want as u64).read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                // The reader stops an entry that inflates past its declared
                // size: a header that lies is a bomb's trick.
                Err(error) if got >= entry.size && !error.to_string().contains("checksum") => {
                    return Err(ParseError::TooLarge(format!(
                        "{archive_name}: entry {} inflates past its declared size of {}: a zip bomb?",
                        entry.name,
                        size_label(entry.size)
                    )));
                }
                Err(error) => return Ok(Err(error.to_string())),
            };
            let Some(read) = buffer.get(..n) else {
                return Ok(Err(format!(
                    "the reader reported {n} bytes read into a {want}-byte buffer"
                )));
            };
            out.extend_from_slice(read);
            let got = out.len() as u64;
            if let Some(limit) = limit
                && got >= limit
            {
                out.truncate(usize::try_from(limit).unwrap_or(out.len()));
                return Ok(Ok(out));
            }
            if got > MAX_ENTRY_BYTES || self.total + got > MAX_ARCHIVE_BYTES {
                return Err(ParseError::TooLarge(format!(
                    "{archive_name}: entry {} inflates past the caps ({} per entry, {} in all): a zip bomb?",
                    entry.name,
                    size_label(MAX_ENTRY_BYTES),
                    size_label(MAX_ARCHIVE_BYTES)
                )));
            }
            if got > RATIO_FLOOR_BYTES && got / entry.compressed.max(1) > MAX_COMPRESSION_RATIO {
                return Err(ParseError::TooLarge(format!(
                    "{archive_name}: entry {} inflates more than {MAX_COMPRESSION_RATIO}× its compressed size: a zip bomb?",
                    entry.name
                )));
            }
        }
        self.total += out.len() as u64;
        Ok(Ok(out))
    }
}

fn names_note(what: &str, names: &[String]) -> Option<String> {
    if names.is_empty() {
        return None;
    }
    let shown: Vec<&str> = names
        .iter()
        .take(NAMED_IN_NOTES)
        .map(String::as_str)
        .collect();
    let more = names.len().saturating_sub(NAMED_IN_NOTES);
    let tail = if more > 0 {
        format!(", and {more} more")
    } else {
        String::new()
    };
    Some(format!(
        "{} {what}: {}{tail}",
        names.len(),
        shown.join(", ")
    ))
}

/// The format a zip's entries hold (the main entry's, else the most common
/// among the first documents), from a prefix of each.
pub(crate) fn detect(bytes: &[u8]) -> Option<SourceFormat> {
    let mut archive = open("zip", bytes).ok()?;
    let selection = select(&mut archive);
    let mut budget = Budget { total: 0 };
    let mut counts: Vec<(SourceFormat, usize)> = Vec::new();
    for entry in selection.read.iter().take(16) {
        if budget.check_declared("zip", entry).is_err() {
            return None;
        }
        let limit = super::detect::SNIFF_BYTES as u64;
        let Ok(Ok(prefix)) = budget.read("zip", &mut archive, entry, Some(limit)) else {
            continue;
        };
        let Some(format) = detect_prefix(&prefix, entry.size <= limit) else {
            continue;
        };
        if selection.main {
            return Some(format);
        }
        match counts.iter_mut().find(|(f, _)| *f == format) {
            Some((_, n)) => *n += 1,
            None => counts.push((format, 1)),
        }
    }
    most_common(&counts)
}

fn most_common(counts: &[(SourceFormat, usize)]) -> Option<SourceFormat> {
    let mut best: Option<(SourceFormat, usize)> = None;
    for &(format, n) in counts {
        if best.is_none_or(|(_, m)| n > m) {
            best = Some((format, n));
        }
    }
    best.map(|(format, _)| format)
}

/// Detection on a prefix of an entry: an incomplete last character is cut.
fn detect_prefix(prefix: &[u8], complete: bool) -> Option<SourceFormat> {
    if complete {
        return super::detect::detect_plain(prefix).ok();
    }
    let cut = match std::str::from_utf8(prefix) {
        Ok(_) => prefix,
        Err(error) if error.error_len().is_none() => {
            prefix.get(..error.valid_up_to()).unwrap_or(prefix)
        }
        Err(_) => prefix,
    };
    super::detect::detect_plain(cut).ok()
}

/// Parse a zip: its main entry, or each document entry.
pub(crate) fn parse(
    name: &str,
    bytes: &[u8],
    hint: Option<SourceFormat>,
) -> Result<Parsed, ParseError> {
    let mut archive = open(name, bytes)?;
    let selection = select(&mut archive);
    let mut notes = Vec::new();
    if selection.read.is_empty() {
        let mut names = selection.skipped.clone();
        names.extend(selection.nested.iter().cloned());
        return Err(ParseError::Unrecognised(format!(
            "{name}: a zip archive with no entry harvest reads ({} entries{})",
            names.len(),
            if names.is_empty() {
                String::new()
            } else {
                format!(
                    ": {}",
                    names
                        .iter()
                        .take(NAMED_IN_NOTES)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        )));
    }
    let mut budget = Budget { total: 0 };
    let mut items = Vec::new();
    let mut first_error: Option<ParseError> = None;
    let mut main_format: Option<SourceFormat> = None;
    let mut first_format: Option<SourceFormat> = None;
    let mut counts: Vec<(SourceFormat, usize)> = Vec::new();
    for entry in &selection.read {
        budget.check_declared(name, entry)?;
        let contents = match budget.read(name, &mut archive, entry, None)? {
            Ok(contents) => contents,
            Err(why) => {
                notes.push(format!("entry {} not read: {why}", entry.name));
                first_error.get_or_insert(ParseError::Unrecognised(format!(
                    "{name}: entry {} cannot be read ({why})",
                    entry.name
                )));
                continue;
            }
        };
        if super::detect::is_zip(&contents) {
            notes.push(format!(
                "entry {} is a zip inside the zip; not opened",
                entry.name
            ));
            continue;
        }
        let label = format!("{name}/{}", entry.name);
        match parse_plain(&label, &contents, hint) {
            Ok(parsed) => {
                first_format.get_or_insert(parsed.format);
                if selection.main && main_format.is_none() && !parsed.items.is_empty() {
                    main_format = Some(parsed.format);
                }
                for item in &parsed.items {
                    match counts.iter_mut().find(|(f, _)| *f == item.source) {
                        Some((_, n)) => *n += 1,
                        None => counts.push((item.source, 1)),
                    }
                }
                notes.extend(
                    parsed
                        .notes
                        .into_iter()
                        .map(|note| format!("{}: {note}", entry.name)),
                );
                items.extend(parsed.items);
            }
            Err(ParseError::TooLarge(message)) => return Err(ParseError::TooLarge(message)),
            Err(error) => {
                notes.push(format!("entry {} not read: {error}", entry.name));
                first_error.get_or_insert(prefix_error(&entry.name, error));
            }
        }
        drop(contents);
    }
    let Some(format) = main_format
        .or_else(|| most_common(&counts))
        .or(first_format)
    else {
        return Err(first_error.unwrap_or_else(|| {
            ParseError::Unrecognised(format!("{name}: no entry of the zip could be read"))
        }));
    };
    let skipped_what = if selection.main {
        "other entries not read"
    } else {
        "entries of other types not read"
    };
    notes.extend(names_note(skipped_what, &selection.skipped));
    notes.extend(names_note(
        "nested zip archive(s) not opened",
        &selection.nested,
    ));
    Ok(Parsed {
        format,
        items,
        notes,
    })
}

/// The error of an entry, its message naming the entry.
fn prefix_error(entry: &str, error: ParseError) -> ParseError {
    match error {
        ParseError::Malformed { format, message } => ParseError::Malformed {
            format,
            message: format!("{entry}: {message}"),
        },
        ParseError::Unrecognised(message) => ParseError::Unrecognised(message),
        ParseError::TooLarge(message) => ParseError::TooLarge(message),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn end_record_count_is_read() {
        let mut eocd = b"junkPK\x05\x06".to_vec();
        eocd.extend_from_slice(&[0, 0, 0, 0, 3, 0, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(declared_entries(&eocd), Some(3));
        assert_eq!(declared_entries(b"not a zip"), None);
    }
}
