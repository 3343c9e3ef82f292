package dev.vsm.server.access;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** pve's ticket and CSRF token lifetimes on a clock the test moves, and passwords on a real access file. */
class TicketsTest {
    @TempDir
    Path dir;

    private final AtomicLong now = new AtomicLong(1_800_000_000L);
    private final Tickets tickets = new Tickets(new byte[32], now::get);

    @Test
    void aTicketLivesTwoHoursAndNamesItsUser() {
        String ticket = tickets.ticket("a:b@pve");
        assertThat(ticket).startsWith("PVE:a%3Ab@pve:6B49D200::");
        assertThat(tickets.verify(ticket)).contains("a:b@pve");
        now.addAndGet(7199);
        assertThat(tickets.verify(ticket)).contains("a:b@pve");
        now.addAndGet(1);
        assertThat(tickets.verify(ticket)).isEmpty();
        now.addAndGet(-7200 - 299);
        assertThat(tickets.verify(ticket)).as("299 s in the future").isPresent();
        now.addAndGet(-1);
        assertThat(tickets.verify(ticket)).as("300 s in the future").isEmpty();
    }

    @Test
    void aCsrfTokenIsItsUsersAndLivesTwoHours() {
        String token = tickets.csrfToken("ops@pve");
        assertThat(token).matches("6B49D200:[A-Za-z0-9+/]{43}");
        assertThat(tickets.verifyCsrf("ops@pve", token)).isTrue();
        assertThat(tickets.verifyCsrf("root@pam", token)).isFalse();
        assertThat(tickets.verifyCsrf("ops@pve", null)).isFalse();
        assertThat(tickets.verifyCsrf("ops@pve", tickets.ticket("ops@pve"))).isFalse();
        now.addAndGet(7200);
        assertThat(tickets.verifyCsrf("ops@pve", token)).isFalse();
    }

    @Test
    void anotherKeysTicketIsRefused() {
        byte[] other = new byte[32];
        other[0] = 1;
        assertThat(tickets.verify(new Tickets(other, now::get).ticket("ops@pve")))
                .isEmpty();
        assertThat(tickets.verify("PVE:ops@pve:6B49D200::")).isEmpty();
        assertThat(tickets.verify("garbage")).isEmpty();
    }

    @Test
    void thePasswordIsCheckedAndOnlyItsHashKept() throws Exception {
        AccessFile file = new AccessFile(dir.resolve("access.json"));
        file.setPassword("ops@pve", "a long password".toCharArray());
        assertThat(java.nio.file.Files.readString(file.file())).doesNotContain("a long password");
        AccessFile.Contents c = file.read();
        assertThat(Permissions.login(c, "ops@pve", "a long password".toCharArray()))
                .isPresent();
        assertThat(Permissions.login(c, "ops@pve", "a long passwore".toCharArray()))
                .isEmpty();
        assertThat(Permissions.login(c, "nobody@pve", "a long password".toCharArray()))
                .isEmpty();
        assertThat(Permissions.ofTicketUser(c, "ops@pve")).isPresent();
        file.removeUser("ops@pve");
        assertThat(Permissions.ofTicketUser(file.read(), "ops@pve")).isEmpty();
    }
}
