//! The Toeplitz hash used by RSS NICs.
//!
//! Definition: Microsoft "RSS hashing functions"; the same algorithm is in the kernel selftest
//! `tools/testing/selftests/net/toeplitz.c` (`toeplitz`) and DPDK `rte_softrss`.
//! The key is a bit string, most significant bit of `key[0]` first. For every set input bit `i`
//! (MSB of `input[0]` first), the 32-bit key slice starting at key bit `i` is XORed into the
//! result. The hash is therefore linear over XOR, and appending zero bytes changes nothing.
//!
//! Two implementations: [`toeplitz_bitwise`], a literal bit-serial transcription used as the
//! reference, and [`ToeplitzTable`], a per-key table of the XOR contribution of every byte value
//! at every input offset (what the NIC computes in hardware, done here with one load per byte).

use alloc::vec::Vec;

/// The 40-byte key of Microsoft's "Verifying the RSS Hash Calculation" suite, also used by the
/// Intel 82599 datasheet §7.1.2.8.3 and DPDK `app/test/test_thash.c`.
pub const MS_VERIFICATION_KEY: [u8; 40] = [
    0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b,
    0xcb, 0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac,
    0x01, 0xfa,
];

/// The longest standard hash input: an IPv6 TCP/UDP 4-tuple (16 + 16 + 2 + 2 bytes).
pub const MAX_INPUT_LEN: usize = 36;

/// Bit `j` of `key`, or 0 past its end.
fn key_bit(key: &[u8], j: usize) -> u32 {
    match key.get(j / 8) {
        Some(byte) => u32::from((byte >> (7 - j % 8)) & 1),
        None => 0,
    }
}

/// Reference Toeplitz: one input bit at a time, shifting the 32-bit key window left by one bit
/// per input bit. Key bits past the end of the key read as zero (as in the definition).
pub fn toeplitz_bitwise(key: &[u8], input: &[u8]) -> u32 {
    let mut window = (0..32).fold(0u32, |w, j| (w << 1) | key_bit(key, j));
    let mut result = 0u32;
    for (byte_idx, &byte) in input.iter().enumerate() {
        for bit in 0..8 {
            if byte & (0x80 >> bit) != 0 {
                result ^= window;
            }
            window = (window << 1) | key_bit(key, byte_idx * 8 + bit + 32);
        }
    }
    result
}

/// The key slice of 32 bits starting at key bit `start`.
fn key_slice(key: &[u8], start: usize) -> u32 {
    (0..32).fold(0u32, |w, j| (w << 1) | key_bit(key, start + j))
}

/// Table-driven Toeplitz for one key: `table[i][b]` is the hash contribution of byte value `b`
/// at input offset `i`, so a hash is one XOR of table entries per input byte.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToeplitzTable {
    key: Vec<u8>,
    table: Vec<[u32; 256]>,
}

impl ToeplitzTable {
    /// Builds the table for inputs of up to [`MAX_INPUT_LEN`] bytes.
    pub fn new(key: &[u8]) -> ToeplitzTable {
        let mut table = Vec::with_capacity(MAX_INPUT_LEN);
        for offset in 0..MAX_INPUT_LEN {
            // The contribution of each of the 8 bits of this byte, MSB first.
            let bits: [u32; 8] = core::array::from_fn(|bit| key_slice(key, offset * 8 + bit));
            let mut row = [0u32; 256];
            for (value, slot) in row.iter_mut().enumerate() {
                *slot = (0..8)
                    .filter(|bit| value & (0x80 >> bit) != 0)
                    .fold(0, |acc, bit| acc ^ bits[bit]);
            }
            table.push(row);
        }
        ToeplitzTable {
            key: key.to_vec(),
            table,
        }
    }

    /// The key the table was built from.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// The hash of `input`; bytes beyond [`MAX_INPUT_LEN`] are ignored (no standard tuple is
    /// longer, and [`crate::rss`] never builds one).
    pub fn hash(&self, input: &[u8]) -> u32 {
        input
            .iter()
            .zip(&self.table)
            .fold(0u32, |acc, (&byte, row)| acc ^ row[usize::from(byte)])
    }
}

/// One row of the published verification suite (Microsoft "Verifying the RSS Hash
/// Calculation", reproduced in DPDK `app/test/test_thash.c` `v4_tbl`/`v6_tbl`).
#[derive(Clone, Copy, Debug)]
pub struct Vector {
    /// Source address of the received packet (hash input starts with it).
    pub src: &'static str,
    /// Destination address.
    pub dst: &'static str,
    /// Source port.
    pub sport: u16,
    /// Destination port.
    pub dport: u16,
    /// Hash over the addresses only.
    pub hash_2tuple: u32,
    /// Hash over addresses and ports.
    pub hash_4tuple: u32,
}

/// The 16 published values (8 packets, 2-tuple and 4-tuple), for [`MS_VERIFICATION_KEY`].
pub const VERIFICATION_VECTORS: [Vector; 8] = [
    Vector {
        src: "66.9.149.187",
        dst: "161.142.100.80",
        sport: 2794,
        dport: 1766,
        hash_2tuple: 0x323e8fc2,
        hash_4tuple: 0x51ccc178,
    },
    Vector {
        src: "199.92.111.2",
        dst: "65.69.140.83",
        sport: 14230,
        dport: 4739,
        hash_2tuple: 0xd718262a,
        hash_4tuple: 0xc626b0ea,
    },
    Vector {
        src: "24.19.198.95",
        dst: "12.22.207.184",
        sport: 12898,
        dport: 38024,
        hash_2tuple: 0xd2d0a5de,
        hash_4tuple: 0x5c2b394a,
    },
    Vector {
        src: "38.27.205.30",
        dst: "209.142.163.6",
        sport: 48228,
        dport: 2217,
        hash_2tuple: 0x82989176,
        hash_4tuple: 0xafc7327f,
    },
    Vector {
        src: "153.39.163.191",
        dst: "202.188.127.2",
        sport: 44251,
        dport: 1303,
        hash_2tuple: 0x5d1809c5,
        hash_4tuple: 0x10e828a2,
    },
    Vector {
        src: "3ffe:2501:200:1fff::7",
        dst: "3ffe:2501:200:3::1",
        sport: 2794,
        dport: 1766,
        hash_2tuple: 0x2cc18cd5,
        hash_4tuple: 0x40207d3d,
    },
    Vector {
        src: "3ffe:501:8::260:97ff:fe40:efab",
        dst: "ff02::1",
        sport: 14230,
        dport: 4739,
        hash_2tuple: 0x0f0c461c,
        hash_4tuple: 0xdde51bbf,
    },
    Vector {
        src: "3ffe:1900:4545:3:200:f8ff:fe21:67cf",
        dst: "fe80::200:f8ff:fe21:67cf",
        sport: 44251,
        dport: 38024,
        hash_2tuple: 0x4b61e985,
        hash_4tuple: 0x02d1feef,
    },
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_vector_by_hand() {
        let input = [66, 9, 149, 187, 161, 142, 100, 80];
        assert_eq!(toeplitz_bitwise(&MS_VERIFICATION_KEY, &input), 0x323e_8fc2);
        assert_eq!(ToeplitzTable::new(&MS_VERIFICATION_KEY).hash(&input), 0x323e_8fc2);
    }

    #[test]
    fn linear_and_zero_padding_invariant() {
        let table = ToeplitzTable::new(&MS_VERIFICATION_KEY);
        let a = [1u8, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
        let b = [0x80u8, 0, 0xff, 4, 9, 6, 1, 0, 9, 10, 0x11, 12];
        let x: Vec<u8> = a.iter().zip(&b).map(|(p, q)| p ^ q).collect();
        assert_eq!(table.hash(&x), table.hash(&a) ^ table.hash(&b));
        assert_eq!(table.hash(&[0; 36]), 0);
        let mut padded = a.to_vec();
        padded.resize(36, 0);
        assert_eq!(table.hash(&padded), table.hash(&a));
        assert_eq!(toeplitz_bitwise(&MS_VERIFICATION_KEY, &padded), table.hash(&a));
    }

    #[test]
    fn table_equals_bitwise_for_many_inputs_and_a_52_byte_key() {
        let key52: Vec<u8> = (0..52u8).map(|i| i.wrapping_mul(37).wrapping_add(11)).collect();
        let table = ToeplitzTable::new(&key52);
        let mut x = 0x1234_5678u32;
        for len in 0..=MAX_INPUT_LEN {
            let input: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 17;
                    x ^= x << 5;
                    x as u8
                })
                .collect();
            assert_eq!(table.hash(&input), toeplitz_bitwise(&key52, &input), "len {len}");
        }
    }
}
