package dev.vsm.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ProcessStampTest {
    @Test
    void thisProcessRunsAndReadsBackFromItsText() {
        ProcessStamp me = ProcessStamp.current();
        assertThat(me.toString()).matches(ProcessStamp.PATTERN).contains(".");
        assertThat(ProcessStamp.parse(me.toString())).contains(me);
        assertThat(me.running()).isTrue();
    }

    @Test
    void aProcessThatEndedDoesNotRun() throws Exception {
        Process child = new ProcessBuilder("true").start();
        assertThat(child.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(ProcessStamp.parse(Long.toString(child.pid())).orElseThrow().running())
                .isFalse();
    }

    @Test
    void aPidHandedOutAgainIsNotTheSameProcess() {
        // this process's pid with another start time: what a stamp of a dead writer looks like once
        // the kernel gave its pid to someone else
        ProcessStamp me = ProcessStamp.current();
        String start = me.toString().substring(me.toString().indexOf('.') + 1);
        ProcessStamp earlier = ProcessStamp.parse(me.pid() + "." + (Long.parseLong(start) - 60_000))
                .orElseThrow();
        assertThat(earlier.running()).isFalse();
    }

    @Test
    void aBarePidFromAnOlderNameIsCheckedByItsPid() {
        assertThat(ProcessStamp.parse(Long.toString(ProcessHandle.current().pid()))
                        .orElseThrow()
                        .running())
                .isTrue();
    }

    @Test
    void otherTextIsNoStamp() {
        assertThat(ProcessStamp.parse("")).isEmpty();
        assertThat(ProcessStamp.parse("12a")).isEmpty();
        assertThat(ProcessStamp.parse("1.2.3")).isEmpty();
        assertThat(ProcessStamp.parse("99999999999")).isEmpty();
    }
}
