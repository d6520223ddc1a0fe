//! A measurement, not a test: what `max`'s Zopfli pass would save at `default`, per still GIF,
//! and at what CPU (docs/images.md, "What `default` within 0.5 % would cost"). Run by
//! `benches/zopfli-yield.sh`, which reads the table this writes.

use super::*;

/// For every still GIF under `$CORPUS`: its bytes and pixels, `default`'s output (the PNG, or
/// the GIF where it was kept) and thread CPU time, and that PNG after the Zopfli pass (ranked with `default`'s filters, None and MinSum)
/// at 1 and 3 iterations, each with the pass's own CPU time, as CSV in `$OUT`.
#[test]
#[ignore = "a measurement: benches/zopfli-yield.sh"]
fn zopfli_yield_per_still_gif() {
    let (Ok(corpus), Ok(out)) = (std::env::var("CORPUS"), std::env::var("OUT")) else {
        panic!("set CORPUS (a directory of GIFs) and OUT (the CSV to write)");
    };
    let mut files: Vec<_> = walkdir::WalkDir::new(&corpus)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .map(walkdir::DirEntry::into_path)
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("gif")))
        .collect();
    files.sort();
    let opts = ImageOptions::default();
    let mut rows = String::from("path,gif,pixels,default,cpu_default,z1,cpu_z1,z3,cpu_z3\n");
    for path in files {
        let gif = std::fs::read(&path).unwrap();
        let conversion = convert_gif(&gif, &opts);
        if conversion.frames != 1 {
            continue;
        }
        let (Some(png), Ok(scan)) = (&conversion.png, apng::scan(&gif, &opts.limits, false)) else {
            // Kept as it is: the GIF is the output, and no pass runs.
            let (bytes, cpu) = (gif.len(), conversion.cpu.as_secs_f64());
            rows += &format!(
                "{},{bytes},0,{bytes},{cpu:.6},{bytes},0,{bytes},0\n",
                path.display()
            );
            continue;
        };
        let pixels = u64::from(scan.width) * u64::from(scan.height);
        let mut cells = Vec::new();
        for iterations in [1, 3] {
            let mut pass =
                effort::zopfli_pass(Effort::Max, pixels, usize::MAX, effort::Filters::Pair)
                    .expect("max has a Zopfli pass");
            pass.ranking.filters = effort::static_options(Effort::Default, false).filters;
            pass.iterations = iterations;
            let cpu = crate::sys::thread_cpu_time();
            let bytes = zopfli_pass(png, &pass).map_or(png.len(), |z| z.len().min(png.len()));
            let cpu = crate::sys::thread_cpu_time().saturating_sub(cpu);
            cells.push(format!("{bytes},{:.6}", cpu.as_secs_f64()));
        }
        rows += &format!(
            "{},{},{pixels},{},{:.6},{}\n",
            path.display(),
            gif.len(),
            png.len(),
            conversion.cpu.as_secs_f64(),
            cells.join(",")
        );
    }
    std::fs::write(out, rows).unwrap();
}
