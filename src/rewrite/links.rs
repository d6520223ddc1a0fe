//! Symbolic links in the rewritten tree: a link inside the site stays a link, so the tree keeps
//! its shape (a deployment that relies on `current -> v2` or `logo.gif -> img/logo.gif` works
//! the same) and no file is written twice.
//!
//! - A link to a directory is written with its target as written (or made relative, see
//!   [`SiteLink::portable_target`]); the directory's files are written once, under their own path.
//! - A link to a file that is not converted is written the same way.
//! - A link to a GIF that is converted follows it: `b.gif -> a.gif` becomes `b.png -> a.png`
//!   (same renaming rule as the references, whose `b.gif` becomes `b.png`; the plan chose a new
//!   name that is free for every name of the GIF). When the original GIF stays in the output,
//!   the old link stays too. A link whose name cannot take the new extension (`b.jpg -> a.gif`)
//!   keeps its name and target, and then keeps the original GIF in the output.

use std::collections::{BTreeMap, BTreeSet};

use super::output::Staging;
use super::pages::Rename;
use crate::error::Problem;
use crate::site::{relative_to, stays_inside, Site, SiteLink};

/// A site path with its last segment renamed the way `pages::retarget` renames a reference:
/// the GIF's tail replaced (any letter case), or the new tail appended to a name without an
/// extension; `None` when the name has another extension.
pub(super) fn renamed(path: &str, rename: &Rename) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    let tail = rename.old_tail.as_str();
    let cut = if name.len() > tail.len()
        && name.is_char_boundary(name.len() - tail.len())
        && name[name.len() - tail.len()..].eq_ignore_ascii_case(tail)
    {
        path.len() - tail.len()
    } else if !tail.is_empty() && !name.is_empty() && !name.contains('.') {
        path.len()
    } else {
        return None;
    };
    Some(format!("{}{}", &path[..cut], rename.new_tail))
}

/// Links to files, by the file they lead to.
pub(super) fn file_links(site: &Site) -> BTreeMap<&str, Vec<&SiteLink>> {
    let mut by_target: BTreeMap<&str, Vec<&SiteLink>> = BTreeMap::new();
    for link in site.links.iter().filter(|l| !l.dir) {
        by_target
            .entry(link.leads_to.as_str())
            .or_default()
            .push(link);
    }
    by_target
}

/// Converted GIFs that a link still needs under their old name: links whose name cannot take
/// the new extension.
pub(super) fn needing_original(site: &Site, converted: &BTreeMap<String, Rename>) -> Vec<String> {
    site.links
        .iter()
        .filter(|l| !l.dir)
        .filter_map(|l| {
            let rename = converted.get(&l.leads_to)?;
            renamed(&l.path, rename)
                .is_none()
                .then(|| l.leads_to.clone())
        })
        .collect()
}

/// Writes every link of the site into the staged tree. `kept`: converted GIFs whose original
/// is also in the output.
pub(super) fn write(
    site: &Site,
    converted: &BTreeMap<String, Rename>,
    kept: &BTreeSet<String>,
    staging: &Staging,
) -> Vec<Problem> {
    let mut problems = Vec::new();
    let make = |path: &str, target: &str| {
        staging.link(path, target).err().map(|err| {
            Problem::new(
                path,
                "unwritable",
                format!("symbolic link to {target} not written: {err}"),
            )
        })
    };
    for link in &site.links {
        if link.dir {
            if let Err(err) = staging.make_dir(&link.leads_to) {
                problems.push(Problem::new(&link.leads_to, "unwritable", err.to_string()));
            }
            problems.extend(make(&link.path, &link.portable_target()));
            continue;
        }
        if site.file(&link.leads_to).is_none() {
            // Its file could not be read: it is not in the output either (and reported).
            continue;
        }
        let new_name = converted
            .get(&link.leads_to)
            .and_then(|rename| Some((rename, renamed(&link.path, rename)?)));
        let Some((rename, new_name)) = new_name else {
            problems.extend(make(&link.path, &link.portable_target()));
            continue;
        };
        let target = match renamed(&link.target, rename) {
            Some(target) if stays_inside(&link.path, &link.target) => target,
            _ => relative_to(
                &new_name,
                &renamed(&link.leads_to, rename).unwrap_or_else(|| link.leads_to.clone()),
            ),
        };
        problems.extend(make(&new_name, &target));
        if kept.contains(&link.leads_to) {
            problems.extend(make(&link.path, &link.portable_target()));
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rename(old: &str, new: &str) -> Rename {
        Rename {
            old_tail: old.to_string(),
            new_tail: new.to_string(),
        }
    }

    #[test]
    fn a_link_name_is_renamed_like_a_reference() {
        let r = rename(".gif", ".png");
        assert_eq!(renamed("img/b.GIF", &r).as_deref(), Some("img/b.png"));
        assert_eq!(renamed("img/logo", &r).as_deref(), Some("img/logo.png"));
        assert_eq!(renamed(r"caf\xe9.gif", &r).as_deref(), Some(r"caf\xe9.png"));
        assert_eq!(renamed("img/b.jpg", &r), None);
        assert_eq!(
            renamed("../x/a.gif", &rename(".gif", "-2.png")).as_deref(),
            Some("../x/a-2.png")
        );
    }

    #[test]
    fn a_gif_without_extension_gets_the_tail_appended() {
        let r = rename("", ".png");
        assert_eq!(renamed("spacer", &r).as_deref(), Some("spacer.png"));
        assert_eq!(renamed("sp.gif", &r).as_deref(), Some("sp.gif.png"));
    }
}
