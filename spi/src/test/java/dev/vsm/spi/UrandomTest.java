package dev.vsm.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class UrandomTest {
    /** 64 bits each: 10,000 draws repeat one with a chance of about 3 in 10^12; every bit takes both values. */
    @Test
    void longsDoNotRepeatAndUseEveryBit() {
        Set<Long> seen = new HashSet<>();
        long ones = 0;
        long zeros = 0;
        for (int i = 0; i < 10_000; i++) {
            long value = Urandom.nextLong();
            assertThat(seen.add(value)).as("draw %d repeats %x", i, value).isTrue();
            ones |= value;
            zeros |= ~value;
        }
        assertThat(ones).isEqualTo(-1L);
        assertThat(zeros).isEqualTo(-1L);
    }

    @Test
    void intsUseEveryBit() {
        int ones = 0;
        int zeros = 0;
        for (int i = 0; i < 1_000; i++) {
            int value = Urandom.nextInt();
            ones |= value;
            zeros |= ~value;
        }
        assertThat(ones).isEqualTo(-1);
        assertThat(zeros).isEqualTo(-1);
    }
}
