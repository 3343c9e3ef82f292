package dev.vsm.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.VolumeInfo;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@link StorageManager#byLowerCaseVolid}: pvesm's order of a listing. */
class ListOrderTest {
    private static VolumeInfo v(String volid) {
        return VolumeInfo.builder(volid, "raw", ContentType.ISO).build();
    }

    @Test
    void byVolidInLowerCaseAndEqualKeysInThePluginsOrder() {
        List<VolumeInfo> listed = List.of(
                v("s:iso/b.iso"),
                v("s:iso/B.iso"),
                v("s:100/vm-100-disk-0.raw"),
                v("s:iso/A.iso"),
                v("s:iso/a.iso"),
                v("s:iso/Ä.iso"),
                v("s:iso/ä.iso"),
                v("s:iso/z.iso"));
        assertThat(StorageManager.byLowerCaseVolid(listed))
                .extracting(VolumeInfo::volid)
                .containsExactly(
                        "s:100/vm-100-disk-0.raw",
                        "s:iso/A.iso",
                        "s:iso/a.iso",
                        "s:iso/b.iso",
                        "s:iso/B.iso",
                        "s:iso/z.iso",
                        "s:iso/Ä.iso",
                        "s:iso/ä.iso");
    }
}
