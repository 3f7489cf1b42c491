package org.tandembroker.store.bdbha;

import static org.assertj.core.api.Assertions.assertThat;

import com.sleepycat.je.Durability;
import org.junit.jupiter.api.Test;

class MasterSessionTest {

    @Test
    void onlyCommitsThatFsyncOnTheMasterOrAReplicaCountAsSyncingByThemselves() {
        assertThat(MasterSession.syncsItself(Durability.parse("NO_SYNC,NO_SYNC,SIMPLE_MAJORITY"))).isFalse();
        assertThat(MasterSession.syncsItself(Durability.parse("WRITE_NO_SYNC,WRITE_NO_SYNC,ALL"))).isFalse();
        assertThat(MasterSession.syncsItself(Durability.parse("SYNC,SYNC,ALL"))).isTrue();
        assertThat(MasterSession.syncsItself(Durability.parse("SYNC,NO_SYNC,SIMPLE_MAJORITY"))).isTrue();
        assertThat(MasterSession.syncsItself(Durability.parse("NO_SYNC,SYNC,SIMPLE_MAJORITY"))).isTrue();
    }
}
