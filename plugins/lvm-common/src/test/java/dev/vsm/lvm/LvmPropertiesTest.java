package dev.vsm.lvm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.vsm.spi.ContentType;
import dev.vsm.spi.PropertySpec;
import dev.vsm.spi.StorageConfig;
import dev.vsm.spi.StorageException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The properties the lvm and lvmthin schemas share, and their order. */
class LvmPropertiesTest {
    @Test
    void theVolumeGroupFirstTheTypesOwnThenTheCommonOnes() {
        PropertySpec own = PropertySpec.bool("own", "a type's own");
        assertThat(LvmProperties.properties(true, own))
                .extracting(PropertySpec::name)
                .containsExactly("vgname", "own", "nodes", "shared", "disable", "content", "bwlimit");
        assertThat(LvmProperties.properties(false))
                .extracting(PropertySpec::name)
                .containsExactly("vgname", "nodes", "disable", "content", "bwlimit");
        PropertySpec content = LvmProperties.properties(false).get(3);
        assertThat(content.allowed()).containsExactly("images", "rootdir");
        assertThat(LvmProperties.CONTENT).containsExactlyInAnyOrder(ContentType.IMAGES, ContentType.ROOTDIR);
    }

    @Test
    void namesAreRequiredFixedAndAsLvm2TakesThem() {
        PropertySpec vgname = LvmProperties.vgname();
        assertThat(vgname.required()).isTrue();
        assertThat(vgname.fixed()).isTrue();
        assertThat(vgname.description()).isEqualTo("the LVM volume group");
        assertThat("pve").matches(vgname.pattern());
        assertThat("VG_data.1-x").matches(vgname.pattern());
        assertThat("-vg").doesNotMatch(vgname.pattern());
        assertThat("vg name").doesNotMatch(vgname.pattern());
        PropertySpec pool = LvmProperties.lvmName("thinpool", "the pool");
        assertThat(pool.required() && pool.fixed()).isTrue();
        assertThat(pool.pattern()).isEqualTo(LvmNames.REGEX);
    }

    @Test
    void aMissingRequiredValueIsBadInput() {
        StorageConfig section = new StorageConfig("san", "lvm", Map.of("vgname", "vg0"));
        assertThat(LvmProperties.vgname(section)).isEqualTo("vg0");
        assertThatThrownBy(() -> LvmProperties.required(section, "thinpool"))
                .isInstanceOf(StorageException.class)
                .hasMessage("storage 'san': missing value for required option 'thinpool'")
                .extracting(e -> ((StorageException) e).kind())
                .isEqualTo(StorageException.Kind.BAD_INPUT);
        assertThatThrownBy(() -> LvmProperties.vgname(new StorageConfig("san", "lvm", Map.of())))
                .hasMessage("storage 'san': missing value for required option 'vgname'");
    }
}
