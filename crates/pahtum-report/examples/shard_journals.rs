//! The merge benchmark's tool (README, Benchmarks): synthetic shard journals, and the merge alone.
//!
//! `shard_journals write DIR GAMES SHARDS`: a synthetic journal of GAMES games
//! (`testing::synthetic_journal`) dealt into DIR/shard-K-of-SHARDS/journal.jsonl as
//! `arena run --shard` would have written them, each header naming its shard (the big journal is
//! removed).
//! `shard_journals merge DIR OUT`: only the streaming merge of DIR's shards into OUT (time it with
//! `/usr/bin/time -v`); `arena merge` adds the standings and the report.
//! `shard_journals journal PATH GAMES`: one synthetic journal of GAMES games at PATH.
//! `shard_journals grown PATH GAMES JOINING`: the same, then JOINING bots join it and every game of theirs
//! follows (`testing::synthetic_grown_journal`): the journal of a tournament that grew.
//! `shard_journals standings PATH`: only `report::standings_of_journal` of the journal at PATH (to
//! profile the reading alone, e.g. under `valgrind --tool=callgrind`).

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};

use pahtum_journal as journal;
use pahtum_journal::merge::merge;
use pahtum_journal::testing::{synthetic_grown_journal, synthetic_journal};
use pahtum_report::fold::standings_of_journal;
use pahtum_tournament::shard::{ScheduleShape, Shard};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["write", dir, games, shards] => write(Path::new(dir), games.parse().unwrap(), shards.parse().unwrap()),
        ["merge", dir, out] => {
            let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir)
                .unwrap()
                .map(|entry| entry.unwrap().path().join("journal.jsonl"))
                .filter(|path| path.exists())
                .collect();
            inputs.sort();
            let merged = merge(&inputs, Path::new(out)).unwrap();
            println!(
                "{} games from {} journals, {} missing",
                merged.games,
                inputs.len(),
                merged.missing.len()
            );
        }
        ["journal", path, games] => {
            synthetic_journal(Path::new(path), games.parse().unwrap());
        }
        ["grown", path, games, joining] => {
            let (grown, _) = synthetic_grown_journal(Path::new(path), games.parse().unwrap(), joining.parse().unwrap());
            println!("{} games scheduled", grown.len());
        }
        ["standings", path] => {
            let standings = standings_of_journal(Path::new(path), None).unwrap();
            println!("{} games", standings.games);
        }
        _ => {
            panic!(
                "usage: shard_journals write DIR GAMES SHARDS | merge DIR OUT | journal PATH GAMES | \
                 grown PATH GAMES JOINING | standings PATH"
            )
        }
    }
}

fn write(dir: &Path, games: usize, shards: usize) {
    std::fs::create_dir_all(dir).unwrap();
    let all = dir.join("all.jsonl");
    synthetic_journal(&all, games);
    let mut lines = BufReader::new(File::open(&all).unwrap()).lines();
    let header: journal::Header = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    let shape = ScheduleShape::of(&header.tournament);
    let mut writers: Vec<BufWriter<File>> = (1..=shards)
        .map(|k| {
            let shard = Shard::new(k, shards).unwrap();
            let folder = dir.join(shard.folder_name());
            std::fs::create_dir_all(&folder).unwrap();
            let mut writer = BufWriter::new(File::create(folder.join("journal.jsonl")).unwrap());
            serde_json::to_writer(&mut writer, &header.clone().of_shard(Some(shard))).unwrap();
            writeln!(writer).unwrap();
            writer
        })
        .collect();
    for line in lines {
        let line = line.unwrap();
        let id: serde_json::Value = serde_json::from_str(&line).unwrap();
        let index = shape.index_of(id["id"].as_str().unwrap()).unwrap();
        writeln!(writers[Shard::of_game(index, shards).index() - 1], "{line}").unwrap();
    }
    for writer in writers {
        writer.into_inner().unwrap().sync_all().unwrap();
    }
    std::fs::remove_file(all).unwrap();
}
