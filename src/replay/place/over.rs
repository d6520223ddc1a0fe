//! Runs the replay over one link where it can ([`replay_over`]): loopback in a private
//! namespace ([`super::netns`]) or on the host ([`super::host`]), an emulated link in a private
//! namespace or not at all.

use super::{host, netns};
use crate::replay::options::{Replay, ReplayOptions};
use crate::replay::served::ServedSite;
use crate::sim::link::Link;

/// What became of the replay over one link.
#[derive(Debug)]
pub enum Over {
    Ran(Replay),
    /// It could not run here: what is missing.
    Unavailable(String),
}

/// Runs the replay of `site` over `link`, where it can: loopback in a private namespace,
/// else on the host loopback (always possible); an emulated link in a private namespace, or
/// not at all. `progress` hears an emulated link's progress lines.
pub fn replay_over(
    site: &ServedSite,
    opts: &ReplayOptions,
    link: &Link,
    progress: &dyn Fn(&str),
) -> crate::error::Result<Over> {
    let in_child = |progress: &dyn Fn(&str)| match netns::run_in_child(site, opts, link, progress) {
        Ok(replay) => Ok(Ok(replay)),
        Err(netns::ChildError::Unavailable(reason)) => Ok(Err(reason)),
        Err(netns::ChildError::Failed(message)) => Err(child_failed(site, message)),
    };
    match link {
        Link::Loopback => {
            let unavailable = if opts.netns {
                match in_child(&|_| {})? {
                    Ok(replay) => return Ok(Over::Ran(replay)),
                    Err(reason) => Some(reason),
                }
            } else {
                None
            };
            host::replay(site, opts, unavailable).map(Over::Ran)
        }
        Link::Emulated(_) if !opts.netns => Ok(Over::Unavailable(
            "--no-netns: an emulated link needs network namespaces".into(),
        )),
        Link::Emulated(_) => Ok(match in_child(progress)? {
            Ok(replay) => Over::Ran(replay),
            Err(reason) => Over::Unavailable(reason),
        }),
    }
}

fn child_failed(site: &ServedSite, message: String) -> crate::error::Error {
    // The child's message already starts with the site's path.
    let prefix = format!("{}: ", site.site.root.display());
    crate::error::Error::Invalid {
        path: site.site.root.clone(),
        message: message
            .strip_prefix(&prefix)
            .unwrap_or(&message)
            .to_string(),
    }
}
