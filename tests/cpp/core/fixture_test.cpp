// The missing-fixture rule of test_util.h: a test that needs a file from outside the repository
// skips locally with a message saying what is missing and how to get it, and fails under CI
// (CI=true or CI=1) naming the fixture. The macro's results are intercepted here, so this test
// itself passes in both environments.
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "test_util.h"

namespace {

// Sets CI for one scope and restores what was there.
class ScopedCi {
public:
    explicit ScopedCi(const char* value) {
        const char* old = std::getenv("CI");
        had_ = old != nullptr;
        if (had_)
            old_ = old;
        if (value)
            setenv("CI", value, 1);
        else
            unsetenv("CI");
    }
    ~ScopedCi() {
        if (had_)
            setenv("CI", old_.c_str(), 1);
        else
            unsetenv("CI");
    }

private:
    bool had_ = false;
    std::string old_;
};

bool reached_end = false;

void needs_absent_fixture() {
    reached_end = false;
    NNFOLD_REQUIRE_FIXTURE(false, "the zoo at /nonexistent/zoo/ncnn", "put ncnn's benchmark .param files there");
    reached_end = true;
}

void needs_present_fixture() {
    reached_end = false;
    NNFOLD_REQUIRE_FIXTURE(true, "anything", "nothing");
    reached_end = true;
}

// Runs `f` with its gtest results captured into `results` instead of reported.
void capture(void (*f)(), ::testing::TestPartResultArray& results) {
    ::testing::ScopedFakeTestPartResultReporter reporter(
        ::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &results);
    f();
}

}  // namespace

TEST(MissingFixture, OnCiReadsTheCiVariable) {
    {
        ScopedCi ci("true");
        EXPECT_TRUE(nnfold::test::on_ci());
    }
    {
        ScopedCi ci("1");
        EXPECT_TRUE(nnfold::test::on_ci());
    }
    {
        ScopedCi ci("false");
        EXPECT_FALSE(nnfold::test::on_ci());
    }
    {
        ScopedCi ci(nullptr);
        EXPECT_FALSE(nnfold::test::on_ci());
    }
}

TEST(MissingFixture, FailsUnderCiNamingTheFixture) {
    ScopedCi ci("true");
    ::testing::TestPartResultArray r;
    capture(needs_absent_fixture, r);
    ASSERT_EQ(r.size(), 1);
    EXPECT_TRUE(r.GetTestPartResult(0).fatally_failed());
    std::string msg = r.GetTestPartResult(0).message();
    EXPECT_NE(msg.find("missing fixture: the zoo at /nonexistent/zoo/ncnn"), std::string::npos) << msg;
    EXPECT_FALSE(reached_end);
}

TEST(MissingFixture, SkipsLocallySayingWhatAndHow) {
    ScopedCi ci(nullptr);
    ::testing::TestPartResultArray r;
    capture(needs_absent_fixture, r);
    ASSERT_EQ(r.size(), 1);
    EXPECT_TRUE(r.GetTestPartResult(0).skipped());
    std::string msg = r.GetTestPartResult(0).message();
    EXPECT_NE(msg.find("the zoo at /nonexistent/zoo/ncnn"), std::string::npos) << msg;
    EXPECT_NE(msg.find("to get it: put ncnn's benchmark .param files there"), std::string::npos) << msg;
    EXPECT_FALSE(reached_end);
}

TEST(MissingFixture, PresentFixtureRunsTheTest) {
    for (const char* v : {"true", static_cast<const char*>(nullptr)}) {
        ScopedCi ci(v);
        ::testing::TestPartResultArray r;
        capture(needs_present_fixture, r);
        EXPECT_EQ(r.size(), 0);
        EXPECT_TRUE(reached_end);
    }
}

TEST(MissingFixture, ZooMessageSaysWhereAndHow) {
    EXPECT_NE(nnfold::test::zoo_fixture().find(nnfold::test::zoo_dir()), std::string::npos);
    EXPECT_NE(nnfold::test::zoo_how_to_get().find("Tencent/ncnn"), std::string::npos);
    EXPECT_NE(nnfold::test::zoo_how_to_get().find("NNFOLD_SHARED_DIR"), std::string::npos);
}
