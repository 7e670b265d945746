// Hidden tests of commons-codec-base16-chunks (JUnit 5): Base16 decoding fed in pieces, as the
// streams feed it (CODEC-305), and whole-input cases the fix must keep.
package org.apache.commons.codec.binary;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

class Base16ChunksTest {

    private static byte[] ascii(final String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    /** Writes each piece to a decoding Base16OutputStream and returns what it decoded. */
    private static byte[] decodeInPieces(final String... pieces) throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Base16OutputStream decoder = new Base16OutputStream(out, false)) {
            for (final String piece : pieces) {
                decoder.write(ascii(piece));
            }
        }
        return out.toByteArray();
    }

    @Test
    void decodesPiecesThatSplitHexPairs() throws IOException {
        assertArrayEquals(new byte[] {(byte) 0xAB, (byte) 0xCD, (byte) 0xEF}, decodeInPieces("A", "BC", "DE", "F"));
    }

    @Test
    void decodesAPieceWrittenFromAnOffset() throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        try (Base16OutputStream decoder = new Base16OutputStream(out, false)) {
            decoder.write(ascii("xx123"), 2, 3);
            decoder.write(ascii("4"));
        }
        assertArrayEquals(new byte[] {0x12, 0x34}, out.toByteArray());
    }

    @Test
    void decodesWholeInput() {
        assertEquals("Hello", new String(new Base16().decode(ascii("48656C6C6F")), StandardCharsets.US_ASCII));
    }

    @Test
    void decodesEvenPieces() throws IOException {
        assertArrayEquals(new byte[] {0x01, 0x23, 0x45, 0x67}, decodeInPieces("0123", "4567"));
    }

    @Test
    void encodesInLowerCase() {
        assertEquals("48656c6c6f", new String(new Base16(true).encode(ascii("Hello")), StandardCharsets.US_ASCII));
    }

    @Test
    void rejectsCharactersOutsideTheAlphabet() {
        assertThrows(IllegalArgumentException.class, () -> new Base16().decode(ascii("4G")));
    }
}
