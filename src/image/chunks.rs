//! PNG chunks, read and written: the one place that knows their framing (length, name, data,
//! CRC-32), for the recompression's chunk policy, the APNG writer and the grey rewrite.

/// The eight bytes every PNG starts with.
pub(super) const SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// One chunk of a PNG: its name and data.
pub(super) struct Chunk<'a> {
    pub name: [u8; 4],
    pub data: &'a [u8],
}

/// The chunks of a PNG up to and with IEND, or why it is not one (no signature, a truncated
/// chunk, a bad CRC).
pub(super) fn parse(png: &[u8]) -> Result<Vec<Chunk<'_>>, String> {
    if !png.starts_with(SIGNATURE) {
        return Err("not a PNG".to_string());
    }
    let mut out = Vec::new();
    let mut at = SIGNATURE.len();
    loop {
        let head = png
            .get(at..at + 8)
            .ok_or_else(|| "truncated: no IEND chunk".to_string())?;
        let len = u32::from_be_bytes([head[0], head[1], head[2], head[3]]) as usize;
        let name = [head[4], head[5], head[6], head[7]];
        let data = at
            .checked_add(8 + len + 4)
            .and_then(|end| png.get(at + 8..end - 4))
            .ok_or_else(|| format!("truncated in chunk {}", String::from_utf8_lossy(&name)))?;
        let crc = &png[at + 8 + len..at + 12 + len];
        if crc32(&name, data).to_be_bytes() != crc {
            return Err(format!(
                "chunk {} has a bad CRC",
                String::from_utf8_lossy(&name)
            ));
        }
        out.push(Chunk { name, data });
        at += 12 + len;
        if &name == b"IEND" {
            return Ok(out);
        }
    }
}

/// The image data: every IDAT chunk's data, joined in order (one zlib stream).
pub(super) fn image_data(list: &[Chunk<'_>]) -> Vec<u8> {
    list.iter()
        .filter(|c| &c.name == b"IDAT")
        .flat_map(|c| c.data.iter().copied())
        .collect()
}

/// Appends one chunk to `out`.
pub(super) fn write(out: &mut Vec<u8>, name: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    out.extend_from_slice(name);
    out.extend_from_slice(data);
    out.extend_from_slice(&crc32(name, data).to_be_bytes());
}

fn crc32(name: &[u8; 4], data: &[u8]) -> u32 {
    let mut crc = crc32fast::Hasher::new();
    crc.update(name);
    crc.update(data);
    crc.finalize()
}
