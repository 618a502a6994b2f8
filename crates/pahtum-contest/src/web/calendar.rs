//! What every page and every change of what plays needs of the season: the
//! phases in effect now, the part of the layout that shows them, and
//! whether authors may change what plays ([`closed_now`]).

use jiff::Timestamp;
use minijinja::context;

use super::site::Site;
use crate::season::{self, Closed, PhaseKey};
use crate::store::StoreError;

/// Why authors may not change what plays now (submit, or make another version active): none while the season
/// is open, or without a season.
pub(crate) fn closed_now(site: &Site) -> Result<Option<Closed>, StoreError> {
    let phases = season::effective(&site.contest, &site.store)?;
    Ok(phases.and_then(|phases| phases.closed(Timestamp::now())))
}

/// An instant as the pages show it in UTC: `2026-12-20 12:00:00 UTC`.
pub(super) fn utc(at: Timestamp) -> String {
    at.strftime("%Y-%m-%d %H:%M:%S UTC").to_string()
}

/// What the layout shows of the season on every page, none without phases: the phase, each instant (in UTC;
/// the layout's script adds the reader's local time), the next (which the script counts down to), and the
/// refusal a submission would get now.
pub(super) fn shown(site: &Site) -> Option<minijinja::Value> {
    let now = Timestamp::now();
    let phases = season::effective(&site.contest, &site.store).ok().flatten()?;
    let phase = phases.at(now);
    let instants: Vec<_> = PhaseKey::ALL
        .into_iter()
        .map(|key| {
            let at = phases.get(key);
            context! {
                key => key.name(), says => key.says(), at => at.to_string(), utc => utc(at), passed => at <= now,
            }
        })
        .collect();
    let next = phases.next_key(now).map(|key| {
        let at = phases.get(key);
        context! { says => key.says(), at => at.to_string(), utc => utc(at) }
    });
    Some(context! {
        phase => phase, says => phase.says(), instants => instants, next => next,
        now_ms => now.as_millisecond(), closed => phases.closed(now).map(|closed| closed.says("submissions")),
    })
}
