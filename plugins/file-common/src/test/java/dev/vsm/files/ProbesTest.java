package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** A probe that hangs gives no answer and does not hold up the probes after it. */
class ProbesTest {
    @Test
    void answersFailuresAndHangs() throws InterruptedException {
        assertThat(Probes.within(Probes.LIMIT, () -> 42)).contains(42);
        assertThat(Probes.within(Probes.LIMIT, () -> {
                    throw new IOException("stale file handle");
                }))
                .isEmpty();
        CountDownLatch mountAnswers = new CountDownLatch(1);
        CountDownLatch hung = new CountDownLatch(1);
        assertThat(Probes.within(Duration.ofMillis(100), () -> {
                    hung.countDown();
                    mountAnswers.await();
                    return "late";
                }))
                .isEmpty();
        hung.await();
        // the hung probe still holds its thread; the next one runs on another
        assertThat(Probes.within(Probes.LIMIT, () -> Thread.currentThread().isDaemon()))
                .contains(true);
        mountAnswers.countDown();
    }
}
